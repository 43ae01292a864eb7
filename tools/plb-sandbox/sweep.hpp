// Removes what runs whose tool process died (SIGKILL, power loss of the tool) left behind: their
// labelled containers and their run directories. Runs whose owner is alive are never touched, so a
// sweep is safe beside parallel runs; every run does one before it starts.
#pragma once

#include <string>
#include <vector>

#include "docker_engine.hpp"

namespace plb::tool {

struct sweep_report {
  std::vector<std::string> removed_containers;
  std::vector<std::string> removed_directories;
  std::size_t live_runs = 0;
};

// Throws failure(cleanup_failed) if an orphan cannot be removed.
sweep_report sweep_orphans(const docker_engine& engine);

}  // namespace plb::tool
