// SPDX-License-Identifier: Apache-2.0
// One pass of the warden's service (warden_service.cpp runs them once a period): the daemon's list
// judged (runner/host/warden.hpp), each overdue container's removal started on a thread of its own
// (warden_removals.hpp), and the removals' answers logged as they land.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "runner/for_cli.hpp"

namespace plb::cli {

inline std::int64_t warden_monotonic_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct warden_state {
  std::atomic<std::int64_t> last_pass{-1};  // warden_monotonic_ms() of the last complete pass
  std::atomic<std::uint64_t> removed{0};
  std::atomic<std::uint64_t> stuck{0};  // at the last pass: overdue by warden_stuck_seconds, still there
  std::atomic<long> supervisor{0};      // the supervisor's PID while it is this process's parent
};

// What the passes remember from one to the next.
struct warden_pass_memory {
  explicit warden_pass_memory(const docker_engine& engine) : removals(engine) {}
  first_sightings seen;
  std::string failing;  // the last list failure logged, empty while the list reads
  std::uint64_t left_out = 0;
  unconfirmed_removals unconfirmed;
  // Due containers whose last removal failed, with the first failed ask's lateness (ms).
  std::unordered_map<std::string, std::int64_t> failing_removals;
  removals_in_flight removals;  // last: its threads are joined before the rest goes
};

// One look at the daemon: every overdue container of the tool's is removed (a running one is
// killed by the forced removal), each on a thread of its own, so that no removal the daemon is slow
// to answer holds up another's or the passes. One that could not be removed is asked again by a
// later pass.
void warden_pass(const docker_engine& engine, warden_state& state, warden_pass_memory& memory);

// The removals answered since the last call, logged (the service calls it between passes too).
void log_removal_answers(warden_state& state, warden_pass_memory& memory);

}  // namespace plb::cli
