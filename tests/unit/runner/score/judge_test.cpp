// SPDX-License-Identifier: Apache-2.0
// The verdict decision as a table: every verdict a finished run can get, including the ones no
// script can cause (cleanup_failed, internal_error), from the observations alone.
#include "runner/score/judge.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace plb::runner {
namespace {

using sandbox::verdict;

// A run that started, exited 0 and was removed: the script's stdout decides.
completed_run clean_run() {
  completed_run done;
  done.outcome.client_exited = true;
  done.outcome.client_exit_code = 0;
  done.outcome.container_id = "abc";
  container_state st;
  st.id = "abc";
  st.status = "exited";
  st.started_at = "2026-11-29T08:00:00.1Z";
  st.exit_code = 0;
  done.state = st;
  return done;
}

// The container exited with `code`, and the client reported it (what an attached client does).
void exit_with(completed_run& d, int code) {
  d.state->exit_code = code;
  d.outcome.client_exit_code = code;
}

struct judge_case {
  const char* name;
  std::function<void(completed_run&)> observe;
  std::optional<verdict> expected;  // nullopt: the stdout decides
  const char* phrase;
};

class Judge : public ::testing::TestWithParam<judge_case> {};

TEST_P(Judge, DecidesFromTheObservationsAlone) {
  completed_run done = clean_run();
  GetParam().observe(done);
  sandbox::SandboxLimits limits;
  limits.wall_seconds = 7;
  limits.memory_mib = 256;
  const auto v = judge(done, limits);
  ASSERT_EQ(v.has_value(), GetParam().expected.has_value()) << (v ? v->message : "");
  if (!v) return;
  EXPECT_EQ(v->verdict, *GetParam().expected) << v->message;
  EXPECT_NE(v->message.find(GetParam().phrase), std::string::npos) << v->message;
}

const judge_case cases[] = {
    {"clean_exit", [](completed_run&) {}, std::nullopt, ""},
    {"cleanup_failed", [](completed_run& d) { d.removal = problem::says("container x could not be removed"); },
     verdict::cleanup_failed, "could not be removed"},
    {"cleanup_beats_timeout",
     [](completed_run& d) {
       d.removal = problem::says("gone?");
       d.outcome.timed_out = true;
     },
     verdict::cleanup_failed, "gone?"},
    {"client_never_started",
     [](completed_run& d) { d.outcome.client_start = problem::says("cannot start /usr/bin/docker: ENOENT"); },
     verdict::internal_error, "cannot start"},
    // A daemon that stopped answering decides only when the client did not see the container end.
    {"daemon_lost",
     [](completed_run& d) {
       d.daemon_lost = true;
       d.outcome.client_exit_code = 125;
       d.state->exit_code = 143;
     },
     verdict::runtime_failed, "stopped answering"},
    {"daemon_lost_and_the_client_was_killed",
     [](completed_run& d) {
       d.daemon_lost = true;
       d.outcome.client_exited = false;
       d.outcome.client_signal = 9;
     },
     verdict::runtime_failed, "stopped answering"},
    {"daemon_slow_but_the_container_exited_0", [](completed_run& d) { d.daemon_lost = true; }, std::nullopt, ""},
    {"daemon_slow_and_the_script_exited_3",
     [](completed_run& d) {
       d.daemon_lost = true;
       exit_with(d, 3);
     },
     verdict::script_failed, "status 3"},
    {"daemon_slow_and_the_run_timed_out",
     [](completed_run& d) {
       d.daemon_lost = true;
       exit_with(d, 137);
       d.outcome.timed_out = true;
     },
     verdict::timeout, "7 s wall time"},
    // The daemon answered every ping, yet the client never reported the container's exit.
    {"client_missed_the_exit",
     [](completed_run& d) {
       d.outcome.client_exit_code = 125;
       d.state->exit_code = 143;
     },
     verdict::runtime_failed, "client exit 125, container exit 143"},
    {"client_killed_by_a_signal",
     [](completed_run& d) {
       d.outcome.client_exited = false;
       d.outcome.client_signal = 9;
     },
     verdict::runtime_failed, "did not report the container's exit"},
    {"timeout", [](completed_run& d) { d.outcome.timed_out = true; }, verdict::timeout, "7 s wall time"},
    // The run's clock (run_clock.hpp): the host's start-up is never the script's, and a start past
    // its allowance is the host's fault, whatever else was seen.
    {"start_allowance_passed", [](completed_run& d) { d.outcome.start_timed_out = true; }, verdict::runtime_failed,
     "did not start within its 30 s start allowance"},
    {"start_allowance_beats_a_timeout",
     [](completed_run& d) {
       d.outcome.start_timed_out = true;
       d.outcome.timed_out = true;
       exit_with(d, 137);
     },
     verdict::runtime_failed, "start allowance"},
    {"started_late_by_the_daemons_times",
     [](completed_run& d) {
       d.times = {true, 30.5, 1.0};  // stopped tool: it never saw the start, the daemon's times tell
     },
     verdict::runtime_failed, "start allowance"},
    {"slow_start_within_the_allowance_is_not_charged",
     [](completed_run& d) {
       d.times = {true, 29.0, 6.9};  // 29 s to start, then 6.9 s of a 7 s wall time
       d.outcome.seen_start_unix_ns = 1;
     },
     std::nullopt, ""},
    // Past the wall time only by every view of the script's end (each can only be late), or by
    // the watchdog's kill of a container the daemon still called running.
    {"past_the_wall_by_the_daemons_times_when_the_start_was_never_seen",
     [](completed_run& d) {
       d.times = {true, 1.0, 12.0, true};  // the reaper killed it; the watchdog, stopped, saw nothing
       exit_with(d, 137);
     },
     verdict::timeout, "7 s wall time"},
    {"in_time_by_the_watchdogs_view_is_in_time",
     [](completed_run& d) {
       d.times = {true, 1.0, 7.05, true};  // the daemon dated the exit a moment late; the watchdog saw it in time
       d.outcome.seen_start_unix_ns = 1;
     },
     std::nullopt, ""},
    {"in_time_by_the_daemons_record_is_in_time",
     [](completed_run& d) {
       d.times = {true, 2.0, 4.49, true};  // the loaded host's client reported the exit past the wall time
       d.outcome.seen_start_unix_ns = 1;
       d.outcome.seen_past_wall = true;
     },
     std::nullopt, ""},
    {"past_the_wall_by_both_views",
     [](completed_run& d) {
       d.times = {true, 1.0, 7.2, true};  // a tool stopped past the deadline: the reaper's kill ended it
       d.outcome.seen_start_unix_ns = 1;
       d.outcome.seen_past_wall = true;
       exit_with(d, 137);
     },
     verdict::timeout, "7 s wall time"},
    {"past_the_wall_by_the_watchdog_where_the_daemon_dated_no_end",
     [](completed_run& d) {
       d.times = {true, 1.0, 7.3, false};
       d.outcome.seen_start_unix_ns = 1;
       d.outcome.seen_past_wall = true;
     },
     verdict::timeout, "7 s wall time"},
    // The kill at the deadline is a timeout unless the daemon dated an exit in time before it (the
    // inspection at the deadline did not answer to say so).
    {"killed_at_the_deadline_after_an_exit_the_daemon_dated_in_time",
     [](completed_run& d) {
       d.times = {true, 1.0, 4.4, true};
       d.state->finished_ns = 100;
       d.outcome.timed_out = true;
       d.outcome.timed_out_unix_ns = 200;
       d.outcome.seen_start_unix_ns = 1;
       d.outcome.seen_past_wall = true;
     },
     std::nullopt, ""},
    {"killed_at_the_deadline_before_the_exit",
     [](completed_run& d) {
       d.times = {true, 1.0, 6.99, true};  // the kill came first and ended it, whatever the dates say
       d.state->finished_ns = 300;
       d.outcome.timed_out = true;
       d.outcome.timed_out_unix_ns = 200;
       exit_with(d, 137);
     },
     verdict::timeout, "7 s wall time"},
    {"killed_at_the_deadline_past_the_wall_by_the_daemon",
     [](completed_run& d) {
       d.times = {true, 1.0, 7.01, true};
       d.state->finished_ns = 100;
       d.outcome.timed_out = true;
       d.outcome.timed_out_unix_ns = 200;
       exit_with(d, 137);
     },
     verdict::timeout, "7 s wall time"},
    {"client_ended_late",
     [](completed_run& d) {
       d.times = {true, 1.0, 2.0, true};
       d.outcome.client_ended_late = true;
       d.outcome.client_exited = false;
       d.outcome.client_signal = 15;
     },
     verdict::runtime_failed, "had not reported it 5 s later"},
    {"no_view_of_the_end_is_no_timeout",
     [](completed_run& d) {
       d.times = {true, 1.0, 0.0, false};  // the daemon dated the start only, the watchdog saw nothing
     },
     std::nullopt, ""},
    {"output_cap", [](completed_run& d) { d.outcome.output_cap_exceeded = true; }, verdict::output_cap_exceeded,
     "4 MiB"},
    {"vanished",
     [](completed_run& d) {
       d.vanished = true;
       d.state.reset();
     },
     verdict::runtime_failed, "vanished"},
    {"vanished_while_inspected",
     [](completed_run& d) {
       d.vanished = true;
       exit_with(d, 137);
     },
     verdict::runtime_failed, "vanished"},
    {"oom_flag",
     [](completed_run& d) {
       d.state->oom_killed = true;
       exit_with(d, 137);
     },
     verdict::memory_exhausted, "256 MiB"},
    {"oom_from_cgroup", [](completed_run& d) { d.outcome.usage.oom_kills = 1; }, verdict::memory_exhausted, "256 MiB"},
    {"killed_at_memory_limit",
     [](completed_run& d) {
       exit_with(d, 137);
       d.outcome.usage.memory_limit_hits = 3;
     },
     verdict::memory_exhausted, "memory limit"},
    {"never_started_with_error",
     [](completed_run& d) {
       d.state->started_at = "0001-01-01T00:00:00Z";
       d.state->error = "OCI runtime failed";
     },
     verdict::runtime_failed, "did not start: OCI runtime failed"},
    {"never_created",
     [](completed_run& d) {
       d.state.reset();
       d.outcome.container_id.clear();
       d.outcome.client_exit_code = 125;
     },
     verdict::runtime_failed, "client exit 125"},
    {"script_failed", [](completed_run& d) { exit_with(d, 3); }, verdict::script_failed, "status 3"},
    {"script_failed_at_task_limit",
     [](completed_run& d) {
       exit_with(d, 2);
       d.outcome.usage.pids_limit_hits = 1;
     },
     verdict::script_failed, "host task limit (320)"},
};

INSTANTIATE_TEST_SUITE_P(Table, Judge, ::testing::ValuesIn(cases),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace plb::runner
