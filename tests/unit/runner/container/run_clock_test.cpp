// SPDX-License-Identifier: Apache-2.0
// The run's clock on given instants: the start allowance until the daemon says the container
// started, then start + wall; a late start is told apart; the record prefers the daemon's times.
#include "runner/container/run_clock.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

using namespace std::chrono_literals;
using steady = run_clock::steady;

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::int64_t gate_unix = 1'800'000'000 * s_ns;  // the gate opened then, by the host's clock
const steady::time_point gate{steady::duration(1000s)};   // ... and then, by the steady clock

TEST(RunClock, TheStartAllowanceRunsUntilTheStartIsKnown) {
  run_clock c(30s, 5s, gate, gate_unix);
  EXPECT_FALSE(c.start_known());
  EXPECT_EQ(c.deadline(), gate + 30s);
  EXPECT_EQ(c.script_elapsed(gate + 20s).count(), 0) << "the host's start-up is not the script's time";
  EXPECT_FALSE(c.started_late());
}

TEST(RunClock, OnceStartedTheWallTimeCountsFromTheDaemonsStart) {
  run_clock c(30s, 5s, gate, gate_unix);
  c.started(gate_unix + 2'500'000'000);  // 2.5 s of create and boot
  EXPECT_TRUE(c.start_known());
  EXPECT_FALSE(c.started_late());
  EXPECT_EQ(c.deadline(), gate + 2500ms + 5s);
  EXPECT_DOUBLE_EQ(c.script_elapsed(gate + 4s).count(), 1.5);
  c.started(gate_unix + 9 * s_ns);  // a second report changes nothing
  EXPECT_EQ(c.deadline(), gate + 2500ms + 5s);
}

// A late docker client is not a late script: the daemon's dated exit decides at the deadline.
TEST(RunClock, AnExitTheDaemonDatedWithinTheWallTimeIsInTime) {
  run_clock c(30s, 5s, gate, gate_unix);
  EXPECT_FALSE(c.ended_in_time(gate_unix + s_ns)) << "no start known: nothing is in time";
  c.started(gate_unix + 2 * s_ns);
  EXPECT_FALSE(c.ended_in_time(std::nullopt)) << "no exit dated: still running by the daemon's word";
  EXPECT_TRUE(c.ended_in_time(gate_unix + 6'990'000'000));  // 4.99 s of 5 s
  EXPECT_FALSE(c.ended_in_time(gate_unix + 7 * s_ns)) << "the whole wall time is past it";
  EXPECT_FALSE(c.ended_in_time(gate_unix + 9 * s_ns));
  EXPECT_FALSE(c.ended_in_time(gate_unix + s_ns)) << "an exit dated before the start is no exit in time";
}

TEST(RunClock, ProgressShowsTheScriptsOwnTime) {
  run_clock c(30s, 5s, gate, gate_unix);
  const auto before = c.progress(gate + 1s, false);
  EXPECT_TRUE(before.starting);
  EXPECT_EQ(before.elapsed_seconds, 0);
  EXPECT_EQ(before.wall_seconds, 5);
  c.started(gate_unix + 2 * s_ns);
  const auto during = c.progress(gate + 3500ms, true);
  EXPECT_FALSE(during.starting);
  EXPECT_TRUE(during.stopping);
  EXPECT_DOUBLE_EQ(during.elapsed_seconds, 1.5);
}

TEST(RunClock, AStartPastTheAllowanceIsLate) {
  run_clock c(30s, 5s, gate, gate_unix);
  c.started(gate_unix + 30 * s_ns + 1);
  EXPECT_TRUE(c.started_late());
  run_clock on_time(30s, 5s, gate, gate_unix);
  on_time.started(gate_unix + 30 * s_ns);
  EXPECT_FALSE(on_time.started_late()) << "exactly at the allowance's end is in time";
}

TEST(RunClock, AStartDatedBeforeTheGateCountsFromTheGate) {
  run_clock c(30s, 5s, gate, gate_unix);
  c.started(gate_unix - 3 * s_ns);  // the host's clock stepped back between the two readings
  EXPECT_EQ(c.deadline(), gate + 5s) << "the script gets no time it did not have";
}

TEST(RunTimes, TheDaemonsTimesDecideTheRecord) {
  const auto t = times_of(gate_unix, gate_unix + 2 * s_ns, 3.9s, gate_unix + 1'800'000'000, gate_unix + 5'400'000'000);
  EXPECT_TRUE(t.started);
  EXPECT_DOUBLE_EQ(t.startup_seconds, 1.8);
  EXPECT_DOUBLE_EQ(t.script_seconds, 3.6);
  EXPECT_TRUE(t.end_by_daemon);
}

TEST(RunTimes, WhatTheWatchdogSawStandsInForWhatTheDaemonDidNotSay) {
  const auto t = times_of(gate_unix, gate_unix + 2 * s_ns, 3.5s, std::nullopt, std::nullopt);
  EXPECT_TRUE(t.started);
  EXPECT_DOUBLE_EQ(t.startup_seconds, 2.0);
  EXPECT_DOUBLE_EQ(t.script_seconds, 3.5);
  EXPECT_FALSE(t.end_by_daemon);
  const auto no_end = times_of(gate_unix, std::nullopt, 1.25s, gate_unix + s_ns, std::nullopt);
  EXPECT_DOUBLE_EQ(no_end.script_seconds, 1.25);
  EXPECT_FALSE(no_end.end_by_daemon);
}

TEST(RunTimes, ANeverStartedContainerHasNoScriptTime) {
  const auto t = times_of(gate_unix, std::nullopt, 0s, std::nullopt, std::nullopt);
  EXPECT_FALSE(t.started);
  EXPECT_EQ(t.script_seconds, 0);
}

}  // namespace
}  // namespace plb::runner
