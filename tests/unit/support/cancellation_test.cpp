// SPDX-License-Identifier: Apache-2.0
// The run's view of a stop request (cancellation.hpp): nothing without a source or before a
// request; after one, check() throws `interrupted` with the request's reason, and the first
// reason stays.

#include <signal.h>

#include <gtest/gtest.h>

#include "support/cancellation.hpp"

namespace plb {
namespace {

TEST(Cancellation, WithoutASourceNothingIsEverRequested) {
  const cancellation none;
  EXPECT_EQ(none.signal(), 0);
  EXPECT_NO_THROW(none.check());
}

TEST(Cancellation, CheckThrowsOnlyOnceAStopIsRequested) {
  sandbox::stop_source stop;
  const cancellation cancel(&stop);
  EXPECT_EQ(cancel.signal(), 0);
  EXPECT_NO_THROW(cancel.check());

  stop.request_stop(SIGTERM);
  EXPECT_EQ(cancel.signal(), SIGTERM);
  try {
    cancel.check();
    FAIL() << "no interruption after a stop request";
  } catch (const interrupted& i) {
    EXPECT_EQ(i.signal, SIGTERM);
  }
}

TEST(Cancellation, TheFirstReasonStaysAndAZeroReasonStillStops) {
  sandbox::stop_source stop;
  const cancellation cancel(&stop);
  stop.request_stop(SIGINT);
  stop.request_stop(SIGTERM);
  EXPECT_EQ(cancel.signal(), SIGINT);

  sandbox::stop_source no_reason;
  const cancellation quiet(&no_reason);
  no_reason.request_stop(0);
  EXPECT_NE(quiet.signal(), 0) << "a request without a reason is still a request";
  EXPECT_THROW(quiet.check(), interrupted);
}

}  // namespace
}  // namespace plb
