// SPDX-License-Identifier: Apache-2.0
#include "runner/container/run_clock.hpp"

#include <algorithm>

namespace plb::runner {

run_clock::run_clock(std::chrono::milliseconds start_allowance, std::chrono::milliseconds wall,
                     steady::time_point gate_opened, std::int64_t gate_opened_unix_ns) noexcept
    : start_allowance_(start_allowance),
      wall_(wall),
      gate_opened_(gate_opened),
      gate_opened_unix_ns_(gate_opened_unix_ns) {}

void run_clock::started(std::int64_t started_unix_ns) noexcept {
  if (started_) return;
  started_unix_ns_ = started_unix_ns;
  // A start the daemon dates before the gate opened (a clock step between the two readings) is
  // taken as the opening itself: the script is never given time it did not have.
  const std::int64_t after_gate = std::max<std::int64_t>(0, started_unix_ns - gate_opened_unix_ns_);
  started_ = gate_opened_ + std::chrono::duration_cast<steady::duration>(std::chrono::nanoseconds(after_gate));
}

bool run_clock::started_late() const noexcept { return started_ && *started_ - gate_opened_ > start_allowance_; }

run_clock::steady::time_point run_clock::deadline() const noexcept {
  return started_ ? *started_ + wall_ : gate_opened_ + start_allowance_;
}

std::chrono::duration<double> run_clock::script_elapsed(steady::time_point now) const noexcept {
  if (!started_ || now <= *started_) return std::chrono::duration<double>::zero();
  return now - *started_;
}

std::optional<std::int64_t> run_clock::started_unix_ns() const noexcept { return started_unix_ns_; }

bool run_clock::ended_in_time(std::optional<std::int64_t> finished_unix_ns) const noexcept {
  return started_unix_ns_ && finished_unix_ns && *finished_unix_ns >= *started_unix_ns_ &&
         std::chrono::nanoseconds(*finished_unix_ns - *started_unix_ns_) < wall_;
}

sandbox::scoring_progress run_clock::progress(steady::time_point now, bool stopping) const noexcept {
  sandbox::scoring_progress p;
  p.elapsed_seconds = script_elapsed(now).count();
  p.wall_seconds = std::chrono::duration<double>(wall_).count();
  p.starting = !start_known();
  p.stopping = stopping;
  return p;
}

std::int64_t unix_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

run_times times_of(std::int64_t gate_opened_unix_ns, std::optional<std::int64_t> seen_start_unix_ns,
                   std::chrono::duration<double> seen_script, std::optional<std::int64_t> started_ns,
                   std::optional<std::int64_t> finished_ns) noexcept {
  const auto seconds = [](std::int64_t ns) { return static_cast<double>(std::max<std::int64_t>(0, ns)) / 1e9; };
  run_times t;
  const std::optional<std::int64_t> start = started_ns ? started_ns : seen_start_unix_ns;
  if (!start) return t;
  t.started = true;
  t.startup_seconds = seconds(*start - gate_opened_unix_ns);
  t.end_by_daemon = started_ns && finished_ns && *finished_ns >= *started_ns;
  t.script_seconds = t.end_by_daemon ? seconds(*finished_ns - *started_ns) : seen_script.count();
  return t;
}

}  // namespace plb::runner
