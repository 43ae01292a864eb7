// SPDX-License-Identifier: Apache-2.0
// The host layer's refusal: always a detail and a fix, which end a run as one line of
// host_refused, and which value() of a refused host_result throws in the same words.
#include "runner/state/refusal.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace plb::runner {
namespace {

host_result<std::string> check(bool passes) {
  if (passes) return std::string("20.10.24");
  return refusal{"the daemon is not running", "start dockerd"};
}

TEST(Refusal, APassingDetailIsAValueNeverARefusal) {
  const auto passed = check(true);
  ASSERT_TRUE(passed);
  EXPECT_EQ(*passed, "20.10.24");
  const auto refused = check(false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().detail, "the daemon is not running");
  EXPECT_EQ(refused.error().fix, "start dockerd");
}

TEST(Refusal, EndsARunAsHostRefusedWithDetailAndFix) {
  try {
    fail(check(false).error());
    FAIL() << "fail(refusal) returned";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::host_refused);
    EXPECT_STREQ(f.what(), "the daemon is not running: start dockerd");
  }
  try {
    (void)check(false).value();
    FAIL() << "value() of a refusal returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the daemon is not running: start dockerd");
  }
}

}  // namespace
}  // namespace plb::runner
