// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/verdict.hpp"
#include "plb/sandbox/task_type.hpp"

#include <gtest/gtest.h>

#include <set>

namespace sb = plb::sandbox;

TEST(Verdict, TableInEnumOrderWithDistinctCodesAndNames) {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < sb::verdict_table.size(); ++i) {
    const auto& v = sb::verdict_table[i];
    EXPECT_EQ(static_cast<std::size_t>(v.v), i);
    EXPECT_TRUE(codes.insert(v.exit_code).second) << v.name;
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_GE(v.exit_code, 0);
    EXPECT_LT(v.exit_code, 126) << "126 and above mean exec failures and signals to a shell";
  }
  EXPECT_EQ(sb::exit_code(sb::verdict::success), 0);
  EXPECT_NE(sb::exit_code(sb::verdict::usage_error), 1) << "1 is what an uncaught failure looks like";
}

TEST(TaskType, ParsesOnlyTheTwoSpellings) {
  EXPECT_EQ(sb::parse_task_type("regression"), sb::task_type::regression);
  EXPECT_EQ(sb::parse_task_type("binary-classification"), sb::task_type::binary_classification);
  for (const char* bad : {"", "Regression", "binary", "classification", "binary_classification", " regression"})
    EXPECT_FALSE(sb::parse_task_type(bad).has_value()) << bad;
  for (auto t : {sb::task_type::regression, sb::task_type::binary_classification})
    EXPECT_EQ(sb::parse_task_type(sb::name(t)), t);
}
