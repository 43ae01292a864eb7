// SPDX-License-Identifier: Apache-2.0
#include "support/private_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/dir_files.hpp"

namespace plb {

std::string directory_of(const std::string& path) {
  const auto p = std::filesystem::path(path).parent_path();
  return p.empty() ? "." : p.string();
}

result<unique_fd> open_private_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return errno_problem(errno);
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd)
    return errno == ENOTDIR || errno == ELOOP ? problem::says("not a directory (symlinks are refused)")
                                              : errno_problem(errno);
  // The descriptor's own inode is checked: what the path names later does not matter.
  if (const auto checked = check_private_dir(fd.get(), path, ::geteuid()); !checked) return checked.error();
  return fd;
}

result<void> check_creatable_dir(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0)
    return problem::says(S_ISLNK(st.st_mode)   ? "a symbolic link (symlinks are refused)"
                         : S_ISDIR(st.st_mode) ? "already exists"
                                               : "not a directory");
  if (errno != ENOENT) return errno_problem(errno);
  const std::string parent = directory_of(path);
  const std::string fix = ": create " + path + " yourself, or choose a path in a directory of your own";
  if (::lstat(parent.c_str(), &st) != 0) {
    if (errno != ENOENT) return problem("its parent " + parent + ": " + std::strerror(errno), errno);
    return problem::says("does not exist, nor does its parent " + parent +
                         ": plb-sandbox creates only the last directory (0700), never a chain; create " + parent +
                         " first");
  }
  if (S_ISLNK(st.st_mode))
    return problem::says("does not exist, and its parent " + parent + " is a symbolic link, which plb-sandbox " +
                         "never creates a directory through" + fix);
  if (!S_ISDIR(st.st_mode)) return problem::says("does not exist, and its parent " + parent + " is not a directory");
  if (const std::string why = why_not_private(st, ::geteuid()); !why.empty())
    return problem::says("does not exist, and plb-sandbox creates a directory (0700) only in one of this user's " +
                         std::string("that no one else can write: its parent ") + parent + " is " + why + fix);
  return {};
}

result<unique_fd> create_private_dir(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return open_private_dir(path);  // made meanwhile
  if (const auto creatable = check_creatable_dir(path); !creatable) return creatable.error();
  return open_private_dir(path);
}

}  // namespace plb
