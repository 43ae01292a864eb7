// SPDX-License-Identifier: Apache-2.0
// The support layer's error shape: a result that holds a value or a problem in words with its
// errno, never mistaking one for the other. (What a run throws: failure_test.cpp.)
#include "support/problem.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

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

}  // namespace
}  // namespace plb
