// SPDX-License-Identifier: Apache-2.0
#include "runner/host/runs_cpu_weight.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

namespace plb::runner {

runs_cpu_weight read_runs_cpu_weight(const std::string& cgroup_version, const std::string& cgroup_driver,
                                     const std::string& root) {
  const bool v2 = cgroup_version == "2";
  const std::string parent = cgroup_driver == "systemd" ? "system.slice" : "docker";
  runs_cpu_weight w{v2 ? root + "/" + parent + "/cpu.weight" : root + "/cpu/" + parent + "/cpu.shares", std::nullopt,
                    v2 ? 100u : 1024u,
                    cgroup_driver == "systemd"
                        ? "system.slice is every service's: raise it with `systemctl set-property system.slice "
                          "CPUWeight=` only where no service needs the CPU more"
                        : "ci/host/setup-host raises it"};
  std::ifstream in(w.file);
  std::string text;
  if (!in || !std::getline(in, text)) return w;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size() && value > 0) w.weight = value;
  return w;
}

std::string describe(const runs_cpu_weight& w) {
  if (!w.weight)
    return w.file + " is not there yet (the daemon makes it with its first container; " + w.how_to_raise + ")";
  std::ostringstream line;
  line << w.file << " = " << *w.weight;
  const std::uint64_t worth = *w.weight / w.host_process_weight;
  if (worth <= 1)
    line << ", as much as one host process: a busy host process takes as much CPU from the runs on its CPUs as "
            "all of them together, and stretches the scripts' own time ("
         << w.how_to_raise << ")";
  else
    line << ", " << worth << " host processes' worth: the runs outrank a busy host process on their CPUs";
  return line.str();
}

}  // namespace plb::runner
