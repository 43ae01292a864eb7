// SPDX-License-Identifier: Apache-2.0
// The daemon watch on given instants: when a ping is due, and when a silent daemon is lost.
#include "runner/container/daemon_watch.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

// What decides daemon_lost: a failed ping is retried at every sample, and only a daemon that
// answered none of them for the whole deadline is lost.
TEST(DaemonWatch, OneSlowPingIsNotALostDaemon) {
  using namespace std::chrono_literals;
  daemon_watch w(10s);
  const daemon_watch::clock::time_point t0{};
  EXPECT_FALSE(w.due(1));
  EXPECT_TRUE(w.due(5));
  EXPECT_FALSE(w.lost(false, t0)) << "one unanswered ping";
  EXPECT_TRUE(w.due(6)) << "an unanswered ping is retried at the next sample";
  EXPECT_FALSE(w.lost(false, t0 + 9s));
  EXPECT_FALSE(w.lost(true, t0 + 9500ms)) << "an answer within the deadline";
  EXPECT_FALSE(w.due(7)) << "back to every fifth sample";
  EXPECT_FALSE(w.lost(false, t0 + 15s)) << "the deadline starts again at the next unanswered ping";
  EXPECT_FALSE(w.lost(false, t0 + 24s));
  EXPECT_TRUE(w.lost(false, t0 + 25s)) << "no answer for the whole deadline";
}

}  // namespace
}  // namespace plb::runner
