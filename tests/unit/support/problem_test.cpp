// SPDX-License-Identifier: Apache-2.0
// The two error shapes (problem.hpp, failure.hpp): a result that holds a value or a problem in
// words with its errno, never mistaking one for the other; and what the top of a run throws, a
// failure with its verdict and line, or an interruption with the stop request's signal.

#include <signal.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "support/failure.hpp"
#include "support/problem.hpp"

namespace plb {
namespace {

result<std::string> text_or_problem(bool ok) {
  if (ok) return std::string("the value");
  return problem::says("a symbolic link");
}

TEST(Problem, SaysIsWordsWithoutAnErrnoAndErrnoProblemIsTheSystemsWords) {
  const problem p = problem::says("owned by uid 1000");
  EXPECT_EQ(p.what, "owned by uid 1000");
  EXPECT_EQ(p.errno_value, 0);
  const problem e = errno_problem(ENOENT);
  EXPECT_EQ(e.what, std::strerror(ENOENT));
  EXPECT_EQ(e.errno_value, ENOENT);
}

TEST(Problem, AStringResultIsAValueAndAProblemIsAnError) {
  const auto good = text_or_problem(true);
  ASSERT_TRUE(good);
  EXPECT_EQ(*good, "the value");
  const auto bad = text_or_problem(false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what, "a symbolic link");
}

TEST(Problem, ValueOfAnErrorThrowsItsWords) {
  const auto bad = text_or_problem(false);
  try {
    (void)bad.value();
    FAIL() << "value() of an error returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "a symbolic link");
  }
  const result<void> done;
  EXPECT_TRUE(done);
}

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
