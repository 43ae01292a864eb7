#include "sweep.hpp"

#include <filesystem>
#include <fstream>

#include "container_cleanup.hpp"
#include "owner.hpp"
#include "workspace.hpp"

namespace plb::tool {

sweep_report sweep_orphans(const docker_engine& engine) {
  sweep_report report;
  for (const auto& c : labelled_containers(engine)) {
    if (!c.owner.empty() && owner_alive(c.owner)) {
      ++report.live_runs;
      continue;
    }
    remove_container(engine, c.name);
    report.removed_containers.push_back(c.name);
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(runs_dir, ec)) {
    std::ifstream in(entry.path() / "owner");
    std::string owner;
    std::getline(in, owner);
    if (!owner.empty() && owner_alive(owner)) continue;
    // A directory created a moment ago may not have its owner file yet: leave young ones alone.
    const auto age = std::filesystem::file_time_type::clock::now() - std::filesystem::last_write_time(entry.path(), ec);
    if (owner.empty() && age < std::chrono::minutes(10)) continue;
    std::filesystem::remove_all(entry.path(), ec);
    report.removed_directories.push_back(entry.path().string());
  }
  return report;
}

}  // namespace plb::tool
