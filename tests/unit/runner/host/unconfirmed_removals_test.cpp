// SPDX-License-Identifier: Apache-2.0
// The warden's removals the daemon did not confirm, on CPUs alone (the real service is driven by
// tests/gvisor/warden_unanswered.sh).
#include "runner/host/unconfirmed_removals.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

const std::string kRun = "0123456789abcdef0123456789abcdef";

labelled_container named(std::string name) { return {std::move(name), kRun, "40", 1000, "exited"}; }

// A removal whose answer a stalled daemon lost: the warden logged "could not remove", the daemon
// removed it, and nothing recorded its end. It is gone once a complete list no longer holds it, or
// once the daemon answers a later removal with "no such container".
TEST(WardenUnconfirmedRemovals, GoneOnceACompleteListNoLongerHoldsIt) {
  unconfirmed_removals pending;
  pending.failed({"a", 1200});
  pending.failed({"b", 300});
  pending.failed({"a", 2200});
  EXPECT_EQ(pending.size(), 2u) << "a retried removal that fails again is the same one";
  EXPECT_TRUE(pending.gone({{named("a"), named("b")}, 0, 0}).empty()) << "both still listed";
  EXPECT_TRUE(pending.gone({{named("b")}, 1, 0}).empty()) << "a list past its bound may have left a out";
  EXPECT_EQ(pending.size(), 2u);
  const auto gone = pending.gone({{named("b"), named("c")}, 0, 0});
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].name, "a");
  EXPECT_EQ(gone[0].ms_past, 1200) << "the lateness when first asked, not at a retry";
  EXPECT_TRUE(pending.gone({{named("b")}, 0, 0}).empty()) << "reported once";
  EXPECT_EQ(pending.size(), 1u);
}

TEST(WardenUnconfirmedRemovals, AnAnsweredRemovalIsForgottenAndSaysWhetherItWasPending) {
  unconfirmed_removals pending;
  EXPECT_FALSE(pending.confirmed("a")) << "never failed: nothing to report";
  pending.failed({"a", 50});
  const auto was = pending.confirmed("a");
  ASSERT_TRUE(was);
  EXPECT_EQ(was->ms_past, 50);
  EXPECT_EQ(pending.size(), 0u);
  EXPECT_TRUE(pending.gone({{}, 0, 0}).empty()) << "confirmed, so not reported gone again";
}

}  // namespace
}  // namespace plb::runner
