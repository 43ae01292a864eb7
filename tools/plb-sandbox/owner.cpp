#include "owner.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace plb::tool {
namespace {

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// Field 22 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces).
std::string start_time(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  std::getline(in, stat);
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
  return boot_id() + ":" + pid + ":" + start_time(pid);
}

bool owner_alive(const std::string& owner) {
  const auto a = owner.find(':');
  const auto b = owner.find(':', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos) return false;
  if (owner.substr(0, a) != boot_id()) return false;
  const std::string pid = owner.substr(a + 1, b - a - 1);
  return !pid.empty() && start_time(pid) == owner.substr(b + 1);
}

}  // namespace plb::tool
