// SPDX-License-Identifier: Apache-2.0
#include "runner/host/runs_cpu_weight.hpp"

#include <charconv>
#include <sstream>
#include <string_view>

#include "runner/container/cgroup_monitor.hpp"  // containers_parent_dir
#include "support/file_io.hpp"

namespace plb::runner {

runs_cpu_weight read_runs_cpu_weight(const std::string& cgroup_version, const std::string& cgroup_driver,
                                     const std::string& root) {
  const bool v2 = cgroup_version == "2";
  runs_cpu_weight w{
      containers_parent_dir(cgroup_version, cgroup_driver, root, "cpu") + (v2 ? "/cpu.weight" : "/cpu.shares"),
      std::nullopt, v2 ? 100u : 1024u,
      cgroup_driver == "systemd"
          ? "system.slice is every service's: raise it with `systemctl set-property system.slice "
            "CPUWeight=` only where no service needs the CPU more"
          : "ci/host/setup-host raises it"};
  const auto text = read_file(w.file);
  if (!text) return w;
  // One number and its newline, as the kernel writes it; anything else is not taken for a weight.
  const std::string_view line = std::string_view(*text).substr(0, text->find('\n'));
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
  if (ec == std::errc() && end == line.data() + line.size() && value > 0) w.weight = value;
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
