// SPDX-License-Identifier: Apache-2.0
#include "runner/container/owner.hpp"

#include <unistd.h>

#include <sstream>

#include "support/file_io.hpp"

namespace plb::runner {
namespace {

std::string first_line(const std::string& path) {
  const auto text = read_file(path);
  if (!text) return {};  // unreadable: that part of the owner label is left empty
  return text->substr(0, text->find('\n'));
}

// Field 22 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces).
std::string start_time(const std::string& pid) {
  const std::string stat = first_line("/proc/" + pid + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 2));
  std::string f;
  for (int i = 3; i <= 22 && fields >> f; ++i) {
    if (i == 22) return f;
  }
  return {};
}

}  // namespace

std::string self_owner() {
  const std::string pid = std::to_string(::getpid());
  return first_line("/proc/sys/kernel/random/boot_id") + ":" + pid + ":" + start_time(pid);
}

}  // namespace plb::runner
