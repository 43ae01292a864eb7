// SPDX-License-Identifier: Apache-2.0
#include "runner/container/sweep.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <filesystem>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/container/container_cleanup.hpp"
#include "runner/container/run_directory.hpp"
#include "support/failure.hpp"

namespace plb::runner {

std::string run_id_of(const std::string& container_name, const std::string& run_label) {
  const std::string_view prefix = sandbox::policy_constants::name_prefix;
  if (!container_name.starts_with(prefix)) return {};
  const std::string id = container_name.substr(prefix.size());
  return is_run_id(id) && run_label == id ? id : std::string{};
}

sweep_report sweep_orphans(const docker_engine& engine) { return sweep_orphans(engine, std::nullopt); }

sweep_report sweep_orphans(const docker_engine& engine, labelled_list listed) {
  sweep_report report;
  const auto runs = open_runs_dir();
  if (!runs) fail(runs.error());
  if (!listed) listed = engine.list_labelled();
  if (!*listed) fail(sandbox::verdict::cleanup_failed, listed->error().message());
  report.left_out = (*listed)->left_out;
  for (const auto& c : (*listed)->containers) {
    const std::string id = run_id_of(c.name, c.run_label);
    const run_liveness live = id.empty() ? run_liveness::missing : probe_run(runs->get(), id);
    if (live == run_liveness::missing) {
      report.not_ours.push_back(c.name);
    } else if (live == run_liveness::alive) {
      ++report.live_runs;
    } else {
      remove_container(engine, c.name);
      report.removed_containers.push_back(c.name);
    }
  }
  // Run directories whose lock nobody holds: the run died after its container was removed (or
  // before it was created).
  DIR* d = ::fdopendir(::fcntl(runs->get(), F_DUPFD_CLOEXEC, 0));
  std::vector<std::string> dead;
  if (d) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (is_run_id(name) && probe_run(runs->get(), name) == run_liveness::dead) dead.push_back(name);
    }
    ::closedir(d);
  }
  for (const auto& name : dead) {
    std::error_code ec;
    const std::string path = std::string(runs_dir) + "/" + name;
    std::filesystem::remove_all(path, ec);
    report.removed_directories.push_back(path);
  }
  return report;
}

}  // namespace plb::runner
