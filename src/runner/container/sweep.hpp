// SPDX-License-Identifier: Apache-2.0
// Removes what runs whose tool process died (SIGKILL, a crash, power loss) left behind: their
// containers and their run directories. A container is the tool's only if all three hold:
//   - its name is exactly plb-sandbox-<run id>, a 32-hex run ID;
//   - its plb-sandbox.run label carries the same run ID;
//   - /var/lib/plb-sandbox/runs/<run id> exists and is root's (the tool's own record of it).
// Anything else carrying the label (an operator's container, a `docker commit` of a sandbox) is
// left alone and listed as not ours. A run whose lock is held is alive, in whatever PID namespace,
// and is never touched. No volume is ever deleted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/engine/docker_engine.hpp"

namespace plb::runner {

struct sweep_report {
  std::vector<std::string> removed_containers;
  std::vector<std::string> removed_directories;
  std::vector<std::string> not_ours;  // labelled containers the tool did not create
  std::size_t live_runs = 0;
  std::uint64_t left_out = 0;  // labelled containers past the list's bound: the next sweep sees them
};

// Throws failure(cleanup_failed) if an orphan cannot be removed, failure(host_refused) when the
// state directories are unsafe.
sweep_report sweep_orphans(const docker_engine& engine);
// The same, from a list the preflight already asked for (host/preflight.hpp's sweep_list); asks for it
// itself when there is none.
sweep_report sweep_orphans(const docker_engine& engine, labelled_list listed);

// The run ID a container name and run label agree on; empty when they do not.
std::string run_id_of(const std::string& container_name, const std::string& run_label);

}  // namespace plb::runner
