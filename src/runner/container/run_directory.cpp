// SPDX-License-Identifier: Apache-2.0
#include "runner/container/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "plb/sandbox/sandbox_policy.hpp"
#include "support/failure.hpp"

namespace plb::runner {

run_directory::run_directory(const std::string& run_id) {
  const auto opened = open_runs_dir();
  if (!opened) fail(opened.error());
  const unique_fd& runs = *opened;
  path_ = std::string(runs_dir) + "/" + run_id;
  if (::mkdirat(runs.get(), run_id.c_str(), 0700) != 0)
    fail(sandbox::verdict::host_refused,
         "cannot create the run directory " + path_ + " (" + std::strerror(errno) + "): run plb-sandbox as root");
  dir_.reset(::openat(runs.get(), run_id.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir_ || ::fchmod(dir_.get(), 0700) != 0)
    fail(sandbox::verdict::internal_error, "cannot open the run directory " + path_ + ": " + std::strerror(errno));
  lock_.reset(::openat(dir_.get(), run_lock_file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock_ || ::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0)
    fail(sandbox::verdict::internal_error, "cannot lock the run directory " + path_ + ": " + std::strerror(errno));
  if (::mkdirat(dir_.get(), "docker-config", 0700) != 0)
    fail(sandbox::verdict::internal_error, "cannot create " + docker_config_dir() + ": " + std::strerror(errno));
}

run_directory::~run_directory() {
  // Removed while the lock is held, so no sweep races the removal; the parents are root's and
  // writable by nobody else, so the path names what the descriptor does.
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool is_run_id(const std::string& s) noexcept {
  if (s.size() != sandbox::policy_constants::run_id_digits) return false;
  for (char c : s)
    if (!sandbox::detail::is_lower_hex(c)) return false;
  return true;
}

run_liveness probe_run(int runs_fd, const std::string& run_id, int young_minutes) {
  if (!is_run_id(run_id)) return run_liveness::missing;
  const unique_fd dir(::openat(runs_fd, run_id.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!dir || ::fstat(dir.get(), &st) != 0 || st.st_uid != 0) return run_liveness::missing;
  const unique_fd lock(::openat(dir.get(), run_lock_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!lock) {
    const auto age = std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime);
    return age < std::chrono::minutes(young_minutes) ? run_liveness::alive : run_liveness::dead;
  }
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return run_liveness::alive;
  return run_liveness::dead;  // our probe's lock goes with the descriptor
}

}  // namespace plb::runner
