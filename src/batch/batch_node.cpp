// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_node.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace plb::batch {
namespace {

bool is_node_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

}  // namespace

std::string node_name() {
  if (const char* slurm = std::getenv("SLURMD_NODENAME"); slurm && is_node_name(slurm)) return slurm;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return {};
  const std::string name(host);
  return is_node_name(name) ? name : std::string();
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  char buf[32];
  if (::gmtime_r(&now, &tm) == nullptr || std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return {};
  return buf;
}

}  // namespace plb::batch
