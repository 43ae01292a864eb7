// SPDX-License-Identifier: Apache-2.0
// The CPU weight of the cgroup every run's container sits under (containers_parent_dir), read for
// doctor. CFS divides a busy CPU among that cgroup and the host's own processes by weight, and the
// parent's weight is shared by every run under it. At the kernel's default it weighs as much as one
// nice-0 host process: a busy host process outside the CPU allocator then takes from a run on its
// CPUs as much as all the runs there together, and the script's own time stretches (bench/README.md,
// ci/bench/bench-loaded-clock). ci/host/setup-host raises it for the cgroupfs driver; the systemd
// driver's parent is system.slice, left to the operator. A run's own CPU limit (its CFS quota) and
// its CPU set still bound what it takes: the weight only decides who waits when a run's CPUs are
// also the host's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace plb::runner {

struct runs_cpu_weight {
  std::string file;                     // the weight's file: cpu.shares (v1) or cpu.weight (v2)
  std::optional<std::uint64_t> weight;  // nullopt: the file is absent or unreadable
  std::uint64_t host_process_weight;    // a nice-0 process's: 1024 (v1 shares) or 100 (v2 weight)
  const char* how_to_raise;             // for doctor's line, by the daemon's cgroup driver
};

// The weight of the containers' parent below `root`, by the daemon's cgroup version ("1", "2") and
// driver ("cgroupfs", "systemd").
runs_cpu_weight read_runs_cpu_weight(const std::string& cgroup_version, const std::string& cgroup_driver,
                                     const std::string& root = "/sys/fs/cgroup");

// doctor's line: the weight in host processes' worth and what it means. Never a refusal: the
// weight decides fairness under load, not whether a run is contained.
std::string describe(const runs_cpu_weight& w);

}  // namespace plb::runner
