// SPDX-License-Identifier: Apache-2.0
// The run's clock: what the wall limit measures, and when the watchdog acts.
//   - The wall limit (limits.wall_seconds) is the script's own run: from its container's start as
//     the daemon records it (State.StartedAt) to its exit (State.FinishedAt).
//   - Before the start the daemon creates the container and gVisor boots it: the host's work, which
//     on a loaded host takes seconds. It has an allowance of its own (limits.start_seconds), counted
//     from the engine gate's opening (the first moment the docker client can reach the daemon). A
//     start past it is the host's fault: runtime_failed, which --retry-failed retries, never a
//     timeout charged to the script.
//   - The watchdog's deadline is the allowance's end until the start is known, then the start plus
//     the wall time. The watchdog learns the start by inspecting the container while it runs (every
//     fifth sample once the daemon has created it: call_budget.hpp); the record is read again,
//     exactly, from the inspection after the run.
//   - The script's end is the container's exit. Every view of it is late: the daemon dates the exit
//     as it handles it, and the docker client reports it later still (on a loaded host, seconds
//     later). So at the deadline the watchdog asks the daemon first, and kills only a container it
//     still calls running; after the run a timeout needs every view to be past the wall time
//     (judge.cpp).
// Pure: the caller hands it every instant, the steady clock's for deadlines and Unix nanoseconds
// (the host's clock, which is the daemon's) for the daemon's timestamps.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "plb/sandbox/scoring_progress.hpp"

namespace plb::runner {

class run_clock {
 public:
  using steady = std::chrono::steady_clock;

  run_clock(std::chrono::milliseconds start_allowance, std::chrono::milliseconds wall, steady::time_point gate_opened,
            std::int64_t gate_opened_unix_ns) noexcept;

  // The daemon says the container started at `started_unix_ns`. The first report stands.
  void started(std::int64_t started_unix_ns) noexcept;
  bool start_known() const noexcept { return started_.has_value(); }
  // The start came after the allowance's end (false while the start is not known).
  bool started_late() const noexcept;
  // When the watchdog acts: the allowance's end, or, once the start is known, start + wall.
  steady::time_point deadline() const noexcept;
  // The script's own time at `now`: zero until its start is known.
  std::chrono::duration<double> script_elapsed(steady::time_point now) const noexcept;
  // The daemon dated the container's exit at `finished_unix_ns`, within the wall time of its start:
  // the script ended in time, however late its docker client is to report it (false while either
  // instant is unknown).
  bool ended_in_time(std::optional<std::int64_t> finished_unix_ns) const noexcept;
  // What a caller's progress line shows at `now`; `stopping`: a kill has begun.
  sandbox::scoring_progress progress(steady::time_point now, bool stopping) const noexcept;

  std::chrono::milliseconds wall() const noexcept { return wall_; }
  std::chrono::milliseconds start_allowance() const noexcept { return start_allowance_; }
  std::int64_t gate_opened_unix_ns() const noexcept { return gate_opened_unix_ns_; }
  std::optional<std::int64_t> started_unix_ns() const noexcept;

 private:
  std::chrono::milliseconds start_allowance_, wall_;
  steady::time_point gate_opened_;
  std::int64_t gate_opened_unix_ns_;
  std::optional<std::int64_t> started_unix_ns_;
  std::optional<steady::time_point> started_;  // the same instant on the steady clock
};

// The host's clock now, in Unix nanoseconds (the daemon's timestamps are on it).
std::int64_t unix_now_ns() noexcept;

// A finished run's two figures for its record, in seconds: the start-up (the gate's opening to the
// container's start) and the script's own time (start to exit). The daemon's timestamps from the
// inspection after the run decide; where it gave none, what the watchdog saw stands.
struct run_times {
  bool started = false;  // the container started at all
  double startup_seconds = 0;
  double script_seconds = 0;
  bool end_by_daemon = false;  // script_seconds is the daemon's own start and end
};

// `seen_start_unix_ns` and `seen_script` are the watchdog's view; `started_ns` and `finished_ns`
// the daemon's (container_state), either may be missing.
run_times times_of(std::int64_t gate_opened_unix_ns, std::optional<std::int64_t> seen_start_unix_ns,
                   std::chrono::duration<double> seen_script, std::optional<std::int64_t> started_ns,
                   std::optional<std::int64_t> finished_ns) noexcept;

}  // namespace plb::runner
