// SPDX-License-Identifier: Apache-2.0
// The CPU weight of the processes that enforce the wall limit (issue 41 item 4). The runs' parent
// cgroup outweighs a host process tenfold (runs_cpu_weight.hpp), so with every CPU spun by
// sandboxes the tool's watchdog, its reaper and the daemons the kill goes through waited behind
// them, and the kill landed up to 2 s past the wall. ci/host/setup-host gives the enforcers cgroups
// that outweigh the runs tenfold in turn: the daemons' own (dockerd, containerd and its shims, the
// warden), and, in cgroup v1's cpu hierarchy only, plb-sandbox-watchdogs, which the tool's watchdog
// thread joins for the run (and leaves after it: the tool's own work, reading and parsing, stays
// at a host process's weight) and its reaper joins for its life. Only the cpu hierarchy: the
// freezer, pids and memory cgroups that a job's tracking (Slurm's, a test's whole-cgroup kill)
// relies on are never left. Under cgroup v2 a thread cannot leave its process's cgroup, and the
// tool stays where it is; the daemons' weight still holds there (SECURITY.md).
#pragma once

#include <string>

namespace plb::runner {

inline constexpr const char* watchdog_cgroup = "plb-sandbox-watchdogs";

// The file that moves a task into the watchdogs' cgroup under ROOT's v1 cpu hierarchy (`tasks`: one
// thread; `cgroup.procs`: a whole process), whether or not it exists.
std::string watchdog_cgroup_file(const std::string& root, const char* file);

// Writes "0" (the writer itself) to FILE, a cgroup's tasks or cgroup.procs: the calling thread or
// process joins that cgroup. Opens nothing that does not exist, allocates nothing: safe after fork.
bool join_cgroup_file(const char* file) noexcept;

// The calling thread in the watchdogs' cgroup while this lives, when the host has one; back in its
// own cpu cgroup afterwards. A host without it (not set up, cgroup v2) changes nothing.
class watchdog_weight {
 public:
  explicit watchdog_weight(const std::string& root = "/sys/fs/cgroup");
  ~watchdog_weight();
  watchdog_weight(const watchdog_weight&) = delete;
  watchdog_weight& operator=(const watchdog_weight&) = delete;

  bool joined() const noexcept { return !back_.empty(); }

 private:
  std::string back_;  // the tasks file of the thread's own cpu cgroup, once it left it
};

}  // namespace plb::runner
