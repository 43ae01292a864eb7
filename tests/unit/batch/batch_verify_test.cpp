// SPDX-License-Identifier: Apache-2.0
// `batch --verify`'s choice of lines to re-run: the top successes by a chosen column, or a seeded
// random sample, and the sentence that says which.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batch/batch_finish.hpp"

namespace plb::batch {
namespace {

std::vector<verify_candidate> candidates() {
  return {{"a", 1, 1.0, 9.0, 100}, {"b", 2, 3.0, 1.0, 300}, {"c", 3, 2.0, 5.0, 200}, {"d", 4, 0.5, 0.1, 50}};
}

std::vector<std::string> ids(const std::vector<verify_candidate>& v) {
  std::vector<std::string> s;
  for (const auto& c : v) s.push_back(c.id);
  return s;
}

TEST(BatchVerify, TopByTheChosenColumn) {
  EXPECT_EQ(ids(choose_verified(candidates(), 2, "wall_seconds", std::nullopt)), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(ids(choose_verified(candidates(), 2, "cpu_seconds", std::nullopt)), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(ids(choose_verified(candidates(), 1, "memory_peak_bytes", std::nullopt)), (std::vector<std::string>{"b"}));
  EXPECT_EQ(ids(choose_verified(candidates(), 3, "line", std::nullopt)), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(choose_verified(candidates(), 10, "line", std::nullopt).size(), 4u);
}

TEST(BatchVerify, ASampleIsTheSameForTheSameSeed) {
  const auto one = ids(choose_verified(candidates(), 2, "wall_seconds", 42));
  EXPECT_EQ(one, ids(choose_verified(candidates(), 2, "wall_seconds", 42)));
  EXPECT_EQ(one.size(), 2u);
  bool other = false;
  for (std::uint64_t seed = 1; seed < 20 && !other; ++seed)
    other = ids(choose_verified(candidates(), 2, "wall_seconds", seed)) != one;
  EXPECT_TRUE(other);
  EXPECT_EQ(selection_text(2, "wall_seconds", 42), "random sample of 2 successes; seed 42");
  EXPECT_EQ(selection_text(2, "cpu_seconds", std::nullopt), "top 2 successes by cpu_seconds");
}

}  // namespace
}  // namespace plb::batch
