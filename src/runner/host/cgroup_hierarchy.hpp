// SPDX-License-Identifier: Apache-2.0
// Which cgroup hierarchy this host mounts, and its controllers, read from the mount point itself
// (doctor names them; the preflight checks they agree with the daemon's). The cgroup monitor
// reads a container's files by the daemon's word ("1" or "2"); a tool that sees another tree
// than dockerd (another mount namespace, a hybrid host) would find none of them and report no
// memory or PID evidence, so the two must agree.
//   - v2 (unified): <root>/cgroup.controllers lists the controllers;
//   - v1: one directory per hierarchy, named by its controllers ("cpu,cpuacct"); a hybrid host
//     also mounts the unified tree at <root>/unified (systemd's, with no controllers).
#pragma once

#include <string>
#include <vector>

#include "runner/state/refusal.hpp"

namespace plb::runner {

struct cgroup_hierarchy {
  std::string version;                   // "2", "1", or "" when no cgroup file system is there
  bool hybrid = false;                   // v1 with the unified tree beside it
  std::vector<std::string> controllers;  // sorted, each once
};

cgroup_hierarchy find_cgroup_hierarchy(const std::string& root = "/sys/fs/cgroup");

// "cgroup v2 (unified): cpu, io, memory, pids" or "cgroup v1 (hybrid): ...".
std::string describe(const cgroup_hierarchy& h);

// The hierarchy agrees with the daemon's CgroupVersion: the line doctor prints, or what is wrong.
host_result<std::string> judge_cgroup_hierarchy(const cgroup_hierarchy& found, const std::string& daemon_version);

}  // namespace plb::runner
