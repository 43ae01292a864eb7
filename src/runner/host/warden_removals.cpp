// SPDX-License-Identifier: Apache-2.0
#include "runner/host/warden_removals.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <system_error>

namespace plb::runner {

struct removals_in_flight::flight {
  overdue_container container;
  bool landed = false;                        // under the owner's lock_; set once, by the thread
  std::optional<engine_result<bool>> answer;  // with landed; none when the call itself threw
  std::thread thread;
};

removals_in_flight::removals_in_flight(const docker_engine& engine, std::size_t at_once)
    : engine_(engine), at_once_(std::max<std::size_t>(at_once, 1)) {
  flights_.reserve(at_once_);  // so that keeping a started thread never allocates
}

removals_in_flight::~removals_in_flight() {
  std::vector<std::unique_ptr<flight>> all;
  {
    const std::lock_guard<std::mutex> held(lock_);
    all.swap(flights_);
  }
  for (auto& f : all)
    if (f->thread.joinable()) f->thread.join();
}

std::size_t removals_in_flight::start(const std::vector<overdue_container>& due) {
  const std::lock_guard<std::mutex> held(lock_);
  std::unordered_map<std::string, std::uint64_t> still;
  for (const auto& c : due)
    if (const auto it = asked_.find(c.name); it != asked_.end()) still.insert(*it);
  asked_.swap(still);
  // Never asked (0) first, then the one asked longest ago; a tie keeps the list's order.
  std::vector<const overdue_container*> order;
  order.reserve(due.size());
  for (const auto& c : due) order.push_back(&c);
  const auto last_ask = [&](const overdue_container* c) {
    const auto it = asked_.find(c->name);
    return it == asked_.end() ? 0 : it->second;
  };
  std::stable_sort(order.begin(), order.end(), [&](auto* a, auto* b) { return last_ask(a) < last_ask(b); });
  std::size_t started = 0;
  for (const overdue_container* c : order) {
    if (flights_.size() >= at_once_) break;
    if (std::any_of(flights_.begin(), flights_.end(), [&](const auto& f) { return f->container.name == c->name; }))
      continue;
    auto f = std::make_unique<flight>();
    f->container = *c;
    flight* const mine = f.get();
    try {
      // The thread writes only its own flight, under the lock; `this` outlives it (the destructor
      // joins every thread). What throws out here (out of memory) leaves before the flight is kept
      // or its ask counted; the service's main reports it.
      f->thread = std::thread([this, mine]() noexcept {
        std::optional<engine_result<bool>> answer;
        try {
          answer.emplace(engine_.remove(mine->container.name));
        } catch (...) {  // out of memory inside the transport: take_answers says so
        }
        const std::lock_guard<std::mutex> done(lock_);
        mine->answer = std::move(answer);
        mine->landed = true;
      });
    } catch (const std::system_error&) {
      break;  // no thread to be had now: the rest wait for a later pass
    }
    flights_.push_back(std::move(f));  // within the room reserved: no allocation
    asked_[c->name] = ++asks_;
    ++started;
  }
  return started;
}

std::vector<removal_answer> removals_in_flight::take_answers() {
  std::vector<std::unique_ptr<flight>> landed;
  landed.reserve(at_once_);
  {
    const std::lock_guard<std::mutex> held(lock_);
    const auto split =
        std::stable_partition(flights_.begin(), flights_.end(), [](const auto& f) { return !f->landed; });
    std::move(split, flights_.end(), std::back_inserter(landed));
    flights_.erase(split, flights_.end());
  }
  for (auto& f : landed) f->thread.join();  // each at its end: its answer is set
  std::vector<removal_answer> out;
  out.reserve(landed.size());
  for (auto& f : landed) {
    if (f->answer)
      out.push_back({std::move(f->container), std::move(*f->answer)});
    else
      // The DELETE may have gone out before the throw: as a lost answer, its container's end is logged.
      out.push_back({std::move(f->container),
                     engine_error{engine_error::kind::unreachable, 0, "the removal failed inside the tool", true}});
  }
  return out;
}

std::size_t removals_in_flight::in_flight() const {
  const std::lock_guard<std::mutex> held(lock_);
  return flights_.size();
}

bool removals_in_flight::asking(const std::string& name) const {
  const std::lock_guard<std::mutex> held(lock_);
  return std::any_of(flights_.begin(), flights_.end(), [&](const auto& f) { return f->container.name == name; });
}

}  // namespace plb::runner
