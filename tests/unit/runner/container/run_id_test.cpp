// SPDX-License-Identifier: Apache-2.0
// Run IDs: 32 lowercase hex digits (what is_run_id and the sandbox policy accept), never repeated.
#include "runner/container/run_id.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runner/container/run_directory.hpp"

namespace plb::runner {
namespace {

TEST(RunId, ThirtyTwoLowercaseHexDigitsThatARunDirectoryAccepts) {
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_run_id();
    EXPECT_EQ(id.size(), 32u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_TRUE(is_run_id(id)) << id;
  }
}

TEST(RunId, NeverTheSameTwice) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(new_run_id());
  EXPECT_EQ(seen.size(), 10000u);
  std::set<char> first_digits;  // 128 random bits, not a counter: every digit turns up in front
  for (const std::string& id : seen) first_digits.insert(id[0]);
  EXPECT_EQ(first_digits.size(), 16u);
}

}  // namespace
}  // namespace plb::runner
