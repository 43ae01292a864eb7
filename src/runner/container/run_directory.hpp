// SPDX-License-Identifier: Apache-2.0
// A run's private directory, /var/lib/plb-sandbox/runs/<run id> (0700, root's). It holds the
// script snapshot, the docker client's empty configuration and the run's lock, and is removed when
// the run ends.
//
// Liveness is the lock, not a PID: the run holds an exclusive flock on runs/<id>/lock for its
// whole life, so a sweep in any PID namespace that shares the state directory sees a live run as
// live; the kernel releases the lock however the tool dies.
#pragma once

#include <string>

#include "runner/state/state_dirs.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

inline constexpr const char* run_lock_file = "lock";

class run_directory {
 public:
  // Checks the state directories (throws failure(host_refused) when unsafe), creates the run's
  // directory relative to runs/'s descriptor and takes its lock.
  explicit run_directory(const std::string& run_id);
  ~run_directory();
  run_directory(const run_directory&) = delete;
  run_directory& operator=(const run_directory&) = delete;

  const std::string& path() const noexcept { return path_; }
  int fd() const noexcept { return dir_.get(); }
  std::string docker_config_dir() const { return path_ + "/docker-config"; }

 private:
  std::string path_;
  unique_fd dir_;
  unique_fd lock_;
};

enum class run_liveness { missing, alive, dead };

// Whether runs/<run id> exists and whether a live process holds its lock. A directory without a
// lock file younger than `young_minutes` counts as alive: it is being created.
run_liveness probe_run(int runs_fd, const std::string& run_id, int young_minutes = 10);

bool is_run_id(const std::string& s) noexcept;

}  // namespace plb::runner
