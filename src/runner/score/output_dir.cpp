// SPDX-License-Identifier: Apache-2.0
#include "runner/score/output_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/failure.hpp"
#include "support/no_symlinks.hpp"
#include "support/private_dir.hpp"

namespace plb::runner {

std::string check_output_dir(const std::string& output, const std::string& flag) {
  std::string dir = directory_of(output);
  const auto refuse = [&](const std::string& why) {
    fail(sandbox::verdict::usage_error, flag + " " + output + ": " + why);
  };
  struct stat st {};
  // Reached through no symbolic link, as verify reaches the predictions later: their provenance
  // records this path, and verify opens no link.
  const auto no_link = [&](const std::string& d) {
    if (const auto reached = open_path_no_symlinks(d); !reached && reached.error().errno_value == ELOOP)
      refuse("directory " + d + ": " + reached.error().what);
  };
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) refuse(dir + " is not a directory");
    no_link(dir);
    return dir;
  }
  if (errno != ENOENT) refuse("directory " + dir + ": " + std::strerror(errno));
  if (const auto creatable = check_creatable_dir(dir); !creatable)
    refuse("directory " + dir + ": " + creatable.error().what);
  no_link(directory_of(dir));
  return directory_of(dir);
}

std::string existing_dir_of(const std::string& output) {
  const std::string dir = directory_of(output);
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 ? dir : directory_of(dir);
}

bool make_output_dir(const std::string& output) {
  const std::string dir = directory_of(output);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return false;  // there all along (or made meanwhile): used as it is
  const auto made = create_private_dir(dir);
  if (!made)
    fail(sandbox::verdict::internal_error, "cannot create the output directory " + dir + ": " + made.error().what);
  return true;
}

void remove_output_dir(const std::string& output) noexcept { ::rmdir(directory_of(output).c_str()); }

}  // namespace plb::runner
