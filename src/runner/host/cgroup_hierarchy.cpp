// SPDX-License-Identifier: Apache-2.0
#include "runner/host/cgroup_hierarchy.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "support/file_io.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// v1: each hierarchy's directory, named by its controllers; a named hierarchy (systemd's) and the
// unified tree hold none.
std::vector<std::string> v1_controllers(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "systemd" || name == "unified" || !present(e.path() / "cgroup.procs")) continue;
    std::istringstream parts(name);
    for (std::string c; std::getline(parts, c, ',');) out.push_back(c);
  }
  return out;
}

}  // namespace

cgroup_hierarchy find_cgroup_hierarchy(const std::string& root) {
  cgroup_hierarchy h;
  if (const auto listed = read_file(root + "/cgroup.controllers")) {
    h.version.assign(1, '2');  // not = "2": GCC 12's -Wrestrict false positive at -O3 (PR 105651)
    std::istringstream words(*listed);
    for (std::string c; words >> c;) h.controllers.push_back(c);
  } else {
    h.controllers = v1_controllers(root);
    if (!h.controllers.empty()) h.version.assign(1, '1');
    h.hybrid = present(fs::path(root) / "unified" / "cgroup.procs");
  }
  std::sort(h.controllers.begin(), h.controllers.end());
  h.controllers.erase(std::unique(h.controllers.begin(), h.controllers.end()), h.controllers.end());
  return h;
}

std::string describe(const cgroup_hierarchy& h) {
  if (h.version.empty()) return "no cgroup file system";
  std::string out = "cgroup v" + h.version + (h.version == "2" ? " (unified)" : h.hybrid ? " (hybrid)" : "") + ": ";
  for (std::size_t i = 0; i < h.controllers.size(); ++i) out += (i ? ", " : "") + h.controllers[i];
  if (h.controllers.empty()) out += "no controllers";
  return out;
}

host_result<std::string> judge_cgroup_hierarchy(const cgroup_hierarchy& found, const std::string& daemon_version) {
  if (found.version.empty())
    return refusal{"no cgroup file system at /sys/fs/cgroup: the sandbox's memory and PID evidence cannot be read",
                   "mount it (a host's default), and run plb-sandbox on the daemon's host, not in a container"};
  if (found.version != daemon_version)
    return refusal{"this process sees " + describe(found) + ", but the daemon reports cgroup v" + daemon_version +
                       ": the sandbox's memory and PID evidence would be read from the wrong tree",
                   "run plb-sandbox in the daemon's mount namespace (on its host, not in a container)"};
  for (const char* needed : {"memory", "pids"})
    if (std::find(found.controllers.begin(), found.controllers.end(), needed) == found.controllers.end())
      return refusal{describe(found) + " has no " + needed + " controller",
                     "enable it (cgroup v2: it must be listed in cgroup.controllers; v1: mount its hierarchy)"};
  return describe(found);
}

}  // namespace plb::runner
