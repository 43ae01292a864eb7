// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_node.hpp"

#include <unistd.h>

#include <ctime>

#include "batch/batch_claims.hpp"

namespace plb::batch {

worker_report local_worker() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  worker_report w;
  w.worker = "local";
  w.node = is_safe_name(host) ? std::string(host) : "unknown";
  w.state = "running";
  return w;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  char buf[32];
  if (::gmtime_r(&now, &tm) == nullptr || std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return {};
  return buf;
}

}  // namespace plb::batch
