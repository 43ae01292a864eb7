// SPDX-License-Identifier: Apache-2.0
// Samples a running container's cgroup: the evidence for "memory exhausted" and "host PID limit
// reached" (gVisor's exit status says neither reliably) and the usage the provenance reports.
// The cgroup disappears when the container stops, so it is sampled while the container runs.
#pragma once

#include <cstdint>
#include <string>

namespace plb::runner {

struct cgroup_usage {
  bool seen = false;  // at least one sample was read
  std::uint64_t memory_peak_bytes = 0;
  std::uint64_t memory_limit_hits = 0;  // memory.failcnt (v1) or memory.events max (v2)
  std::uint64_t oom_kills = 0;
  std::uint64_t pids_limit_hits = 0;  // pids.events max
  std::uint64_t pids_peak = 0;        // highest pids.current sampled
  std::uint64_t cpu_nanoseconds = 0;
};

// The cgroup the daemon puts every container under, below `root` (where the cgroup file systems
// are mounted): by its driver, "docker" (cgroupfs) or "system.slice" (systemd); by its cgroup
// version, inside `controller`'s hierarchy (v1) or in the unified tree (v2, `controller` unused).
std::string containers_parent_dir(const std::string& cgroup_version, const std::string& cgroup_driver,
                                  const std::string& root, const char* controller);

class cgroup_monitor {
 public:
  // cgroup_version "1" or "2", driver "cgroupfs" or "systemd" (from the daemon's /info). `root`
  // is where the cgroup file systems are mounted (a test gives a directory of its own).
  cgroup_monitor(std::string cgroup_version, std::string cgroup_driver, std::string root = "/sys/fs/cgroup");

  void attach(const std::string& container_id);
  bool attached() const noexcept { return !container_id_.empty(); }
  void sample();  // keeps the last values read; a vanished cgroup leaves them as they were
  const cgroup_usage& usage() const noexcept { return usage_; }

 private:
  std::string dir(const char* controller) const;

  std::string version_, driver_, root_, container_id_;
  cgroup_usage usage_;
};

}  // namespace plb::runner
