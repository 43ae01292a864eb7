// SPDX-License-Identifier: Apache-2.0
#include "runner/host/unconfirmed_removals.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace plb::runner {

void unconfirmed_removals::failed(const overdue_container& c) {
  for (const auto& r : pending_)
    if (r.name == c.name) return;  // the first ask's lateness is the one to report
  if (pending_.size() < unconfirmed_removals_kept) pending_.push_back({c.name, c.ms_past});
}

std::optional<unconfirmed_removals::removal> unconfirmed_removals::confirmed(const std::string& name) {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const removal& r) { return r.name == name; });
  if (it == pending_.end()) return std::nullopt;
  removal r = std::move(*it);
  pending_.erase(it);
  return r;
}

std::vector<unconfirmed_removals::removal> unconfirmed_removals::gone(const container_list& listed) {
  std::vector<removal> out;
  if (listed.left_out > 0 || pending_.empty()) return out;
  std::unordered_set<std::string_view> names;
  for (const auto& c : listed.containers) names.insert(c.name);
  std::erase_if(pending_, [&](removal& r) {
    if (names.contains(r.name)) return false;
    out.push_back(std::move(r));
    return true;
  });
  return out;
}

}  // namespace plb::runner
