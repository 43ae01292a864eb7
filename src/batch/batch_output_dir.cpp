// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_output_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/private_dir.hpp"

namespace plb::batch {

output_dir open_output_dir(const std::string& dir, bool lock, const host_key& key) {
  const auto refuse = [&](const std::string& why) {
    fail(sandbox::verdict::usage_error, "--output-dir " + dir + ": " + why);
  };
  auto fd = open_private_dir(dir);  // the rule every directory the tool creates keeps
  if (!fd) refuse(fd.error().what);
  output_dir out{dir, std::move(*fd), {}, ::geteuid(), key};
  if (!lock) return out;
  out.lock.reset(::openat(out.fd.get(), ".plb-batch.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!out.lock) refuse(std::string("cannot create its lock file: ") + std::strerror(errno));
  if (::flock(out.lock.get(), LOCK_EX | LOCK_NB) != 0)
    refuse(errno == EWOULDBLOCK ? "another batch is writing to it" : std::strerror(errno));
  return out;
}

output_dir open_output_dir(const std::string& dir, bool lock) { return open_output_dir(dir, lock, this_host_key()); }

unique_fd open_output_subdir(int dir_fd, const std::string& dir, const std::string& name) {
  auto sub = open_private_subdir(dir_fd, dir, name);
  if (!sub) fail(sandbox::verdict::usage_error, "--output-dir: " + sub.error().what);
  return std::move(*sub);
}

std::string csv_name(const std::string& id) { return id + ".csv"; }
std::string provenance_name(const std::string& id) { return id + ".csv.sandbox.json"; }
std::string diagnostics_name(const std::string& id) { return id + ".stderr"; }
std::string record_name(const std::string& id) { return id + ".result.json"; }

}  // namespace plb::batch
