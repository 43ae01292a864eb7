// SPDX-License-Identifier: Apache-2.0
#include "runner/host/warden_removals.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <system_error>

namespace plb::runner {

struct removals_in_flight::flight {
  overdue_container container;
  std::optional<engine_result<bool>> answer;  // under the owner's lock_; set once, by the thread
  std::thread thread;
};

removals_in_flight::removals_in_flight(const docker_engine& engine, std::size_t at_once)
    : engine_(engine), at_once_(std::max<std::size_t>(at_once, 1)) {}

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
  std::size_t started = 0;
  const std::lock_guard<std::mutex> held(lock_);
  for (const auto& c : due) {
    if (flights_.size() >= at_once_) break;
    if (std::any_of(flights_.begin(), flights_.end(), [&](const auto& f) { return f->container.name == c.name; }))
      continue;
    auto f = std::make_unique<flight>();
    f->container = c;
    flight* const mine = f.get();
    try {
      // The thread only writes its own flight's answer, under the lock; `this` outlives it (the
      // destructor joins every thread).
      f->thread = std::thread([this, mine]() noexcept {
        engine_result<bool> answer = engine_error{engine_error::kind::unreachable, 0, "the removal was not sent"};
        try {
          answer = engine_.remove(mine->container.name);
        } catch (const std::exception& e) {  // out of memory inside the transport
          answer = engine_error{engine_error::kind::unreachable, 0, std::string("the removal failed: ") + e.what()};
        }
        const std::lock_guard<std::mutex> done(lock_);
        mine->answer = std::move(answer);
      });
    } catch (const std::system_error&) {
      break;  // no thread to be had now: the rest wait for a later pass
    }
    flights_.push_back(std::move(f));
    ++started;
  }
  return started;
}

std::vector<removal_answer> removals_in_flight::take_answers() {
  std::vector<std::unique_ptr<flight>> landed;
  {
    const std::lock_guard<std::mutex> held(lock_);
    const auto split =
        std::stable_partition(flights_.begin(), flights_.end(), [](const auto& f) { return !f->answer; });
    std::move(split, flights_.end(), std::back_inserter(landed));
    flights_.erase(split, flights_.end());
  }
  std::vector<removal_answer> out;
  out.reserve(landed.size());
  for (auto& f : landed) {
    f->thread.join();  // its answer is set: the thread is at its end
    out.push_back({std::move(f->container), std::move(*f->answer)});
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
