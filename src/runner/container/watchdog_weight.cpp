// SPDX-License-Identifier: Apache-2.0
#include "runner/container/watchdog_weight.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <string_view>

namespace plb::runner {
namespace {

// The calling thread's path in the v1 cpu hierarchy ("/", "/docker/..."): the line of
// /proc/thread-self/cgroup whose controllers include "cpu" ("1:cpu:/" or "4:cpu,cpuacct:/x").
// Empty under cgroup v2 (its one line is "0::/path") or when it cannot be read.
std::string own_cpu_cgroup() {
  std::ifstream in("/proc/thread-self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
    std::size_t from = 0;
    while (from <= controllers.size()) {
      const std::size_t comma = std::min(controllers.find(',', from), controllers.size());
      if (controllers.substr(from, comma - from) == "cpu") return line.substr(second + 1);
      from = comma + 1;
    }
  }
  return {};
}

}  // namespace

std::string watchdog_cgroup_file(const std::string& root, const char* file) {
  return root + "/cpu/" + watchdog_cgroup + "/" + file;
}

bool join_cgroup_file(const char* file) noexcept {
  const int fd = ::open(file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool written = ::write(fd, "0", 1) == 1;
  ::close(fd);
  return written;
}

watchdog_weight::watchdog_weight(const std::string& root) {
  const std::string own = own_cpu_cgroup();
  if (own.empty()) return;  // cgroup v2, or no cpu hierarchy: nothing to join
  if (join_cgroup_file(watchdog_cgroup_file(root, "tasks").c_str()))
    back_ = root + "/cpu" + (own == "/" ? std::string() : own) + "/tasks";
}

watchdog_weight::~watchdog_weight() {
  if (!back_.empty()) (void)join_cgroup_file(back_.c_str());  // best effort: a cgroup gone meanwhile
}

}  // namespace plb::runner
