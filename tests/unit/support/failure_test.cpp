// SPDX-License-Identifier: Apache-2.0
// What the top of a run throws: a failure with its verdict and line, or an interruption with the
// stop request's signal, which is no failure.
#include "support/failure.hpp"

#include <signal.h>

#include <gtest/gtest.h>

#include <stdexcept>

namespace plb {
namespace {

TEST(Failure, FailThrowsTheVerdictAndTheLine) {
  try {
    fail(sandbox::verdict::host_refused, "the daemon does not answer");
    FAIL() << "fail() returned";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::host_refused);
    EXPECT_STREQ(f.what(), "the daemon does not answer");
  }
  const failure f(sandbox::verdict::usage_error, "--seconds 0: outside the allowed bounds");
  const std::runtime_error& as_runtime = f;  // a catch of std::exception sees the line too
  EXPECT_STREQ(as_runtime.what(), "--seconds 0: outside the allowed bounds");
}

TEST(Interrupted, CarriesTheStopRequestsSignalAndIsNoFailure) {
  try {
    throw interrupted(SIGTERM);
  } catch (const failure&) {
    FAIL() << "an interruption is not a failure: it has no verdict of its own";
  } catch (const interrupted& i) {
    EXPECT_EQ(i.signal, SIGTERM);
    EXPECT_STREQ(i.what(), "stopped on request");
  }
}

}  // namespace
}  // namespace plb
