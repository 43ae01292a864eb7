// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/image_id.hpp"

#include <gtest/gtest.h>

#include <type_traits>

#include <set>
#include <string>

namespace sb = plb::sandbox;
using E = sb::image_id_error;

namespace {
const std::string hex64 = "88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870";
const std::string good = "sha256:" + hex64;
}  // namespace

TEST(ImageId, AcceptsExactlyALocalSha256Id) {
  const auto r = sb::parse_image_id(good);
  ASSERT_TRUE(r) << sb::message(r.error);
  ASSERT_TRUE(r.id.has_value());
  EXPECT_EQ(r.id->str(), good);
}

TEST(ImageId, OnlyTheParserMakesOne) {
  // No constructor is public (not even a default one), and a default result is a failure.
  static_assert(!std::is_default_constructible_v<sb::image_id>);
  static_assert(!std::is_constructible_v<sb::image_id, std::string>);
  const sb::image_id_result none;
  EXPECT_FALSE(none);
  EXPECT_FALSE(none.id.has_value());
}

struct Case {
  std::string text;
  E error;
  std::size_t offset;
};
void PrintTo(const Case& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.text)); }

class ImageIdRejects : public ::testing::TestWithParam<Case> {};

TEST_P(ImageIdRejects, WithItsReasonAndOffset) {
  const auto& c = GetParam();
  const auto r = sb::parse_image_id(c.text);
  EXPECT_FALSE(r);
  EXPECT_EQ(r.error, c.error) << c.text << ": " << sb::message(r.error);
  EXPECT_EQ(r.offset, c.offset) << c.text;
  EXPECT_FALSE(r.id.has_value()) << "a failed parse hands out no ID";
}

INSTANTIATE_TEST_SUITE_P(
    Table, ImageIdRejects,
    ::testing::Values(
        Case{"", E::empty, 0}, Case{" " + good, E::surrounding_whitespace, 0},
        Case{good + "\n", E::surrounding_whitespace, good.size()}, Case{"python:3.11", E::tag, 6},
        Case{"python", E::tag, 0}, Case{"latest", E::tag, 0}, Case{"python@" + good, E::repository_digest, 6},
        Case{"registry.example:5000/python", E::registry_reference, 21},
        Case{"library/python:3", E::registry_reference, 7}, Case{hex64, E::missing_prefix, 0},
        Case{"sha512:" + hex64 + hex64, E::unsupported_algorithm, 0}, Case{"sha256:88bf3be57630", E::short_id, 19},
        Case{"sha256:", E::short_id, 7}, Case{good + "0", E::too_long, 71},
        Case{"sha256:88BF3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870", E::uppercase_hex, 9},
        Case{"sha256:88gf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870", E::not_hex, 9},
        Case{"sha256:" + hex64.substr(0, 63) + "-", E::not_hex, 70}));

TEST(ImageId, EveryErrorHasADistinctMessage) {
  std::set<std::string_view> seen;
  for (int i = 0; i <= static_cast<int>(E::not_hex); ++i)
    EXPECT_TRUE(seen.insert(sb::message(static_cast<E>(i))).second) << i;
}
