// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/features_encoder.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <boost/json/parse.hpp>

namespace sb = plb::sandbox;

namespace {
// Reads the document back with an independent reader: Boost.JSON's DOM for the shape, strtod on
// each number's text for the value (the DOM itself is not correctly rounded in 1.81).
std::vector<double> read_back(const std::string& doc, std::size_t columns) {
  const auto v = boost::json::parse(doc);
  std::vector<double> out;
  for (const auto& row : v.as_object().at("features").as_array()) {
    EXPECT_EQ(row.as_array().size(), columns);
    for (const auto& x : row.as_array()) EXPECT_TRUE(x.is_double()) << "every value must read as a float";
  }
  // Numbers' text, in order: everything between delimiters after the key.
  std::size_t i = doc.find('[') + 1;
  while (i < doc.size()) {
    if (doc[i] == '[' || doc[i] == ']' || doc[i] == ',' || doc[i] == '}') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < doc.size() && doc[j] != ',' && doc[j] != ']') ++j;
    out.push_back(std::strtod(doc.substr(i, j - i).c_str(), nullptr));
    i = j;
  }
  return out;
}
}  // namespace

TEST(FeaturesEncoder, Shape) {
  std::string doc;
  const std::vector<double> v{1, 2.5, -3, 0.125};
  const auto r = sb::encode_features_to_string(v, 2, doc);
  ASSERT_TRUE(r);
  EXPECT_EQ(doc, R"({"features":[[1.0,2.5],[-3.0,0.125]]})");
  EXPECT_EQ(r.bytes, doc.size());
  EXPECT_TRUE(sb::encode_features_to_string({}, 3, doc));
  EXPECT_EQ(doc, R"({"features":[]})");
}

TEST(FeaturesEncoder, EdgeValuesRoundTripBitExactly) {
  const std::vector<double> v{-0.0,
                              0.0,
                              std::numeric_limits<double>::denorm_min(),
                              -std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::min(),
                              std::numeric_limits<double>::max(),
                              -std::numeric_limits<double>::max(),
                              1e22,
                              1e21,
                              123456789012345678.0,
                              0.1,
                              1.0 / 3};
  std::string doc;
  ASSERT_TRUE(sb::encode_features_to_string(v, 3, doc));
  const auto back = read_back(doc, 3);
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back[i]), std::bit_cast<std::uint64_t>(v[i])) << i << " " << doc;
  EXPECT_NE(doc.find("[-0.0,0.0,"), std::string::npos) << doc;
}

TEST(FeaturesEncoder, RandomDoublesRoundTripAndSizeIsExact) {
  std::mt19937_64 rng(11);
  std::vector<double> v;
  while (v.size() < 30'000) {
    const double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) v.push_back(d);
  }
  std::string doc;
  sb::encode_options o;
  o.chunk_bytes = 100;  // many flushes
  const auto r = sb::encode_features_to_string(v, 5, doc, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r.bytes, doc.size());
  EXPECT_EQ(sb::encoded_size(v, 5).bytes, doc.size());
  const auto back = read_back(doc, 5);
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(back[i]), std::bit_cast<std::uint64_t>(v[i])) << i;
}

TEST(FeaturesEncoder, ChunksRespectTheRequestedSize) {
  std::vector<double> v(1000, -1.2345678901234567e-300);
  sb::encode_options o;
  o.chunk_bytes = 200;
  std::size_t largest = 0, total = 0;
  const auto r = sb::encode_features(
      v, 4,
      [&](std::string_view s) {
        largest = std::max(largest, s.size());
        total += s.size();
        return true;
      },
      o);
  ASSERT_TRUE(r);
  EXPECT_LE(largest, 200u);
  EXPECT_EQ(total, r.bytes);
}

TEST(FeaturesEncoder, TinyChunkSizesAreRaisedToTheMinimum) {
  std::vector<double> v(100, -1.2345678901234567e-300);
  sb::encode_options o;
  o.chunk_bytes = 1;
  std::size_t largest = 0, calls = 0;
  ASSERT_TRUE(sb::encode_features(
      v, 3 - 2,
      [&](std::string_view s) {
        largest = std::max(largest, s.size());
        return ++calls, true;
      },
      o));
  EXPECT_LE(largest, sb::encode_options::min_chunk_bytes);
  EXPECT_GT(calls, 10u);
}

TEST(FeaturesEncoder, RefusesBeforeWritingAnything) {
  const std::vector<double> v{1, 2, 3, 4};
  int calls = 0;
  auto sink = [&](std::string_view) { return ++calls, true; };
  sb::encode_options o;
  o.max_bytes = sb::encoded_size(v, 2).bytes - 1;
  auto r = sb::encode_features(v, 2, sink, o);
  EXPECT_EQ(r.error, sb::encode_error::too_large);
  EXPECT_EQ(r.bytes, o.max_bytes + 1);
  o.max_bytes += 1;
  EXPECT_TRUE(sb::encode_features(v, 2, sink, o)) << "a document exactly at the limit passes";
  calls = 0;
  const std::vector<double> bad{1, std::nan(""), 3, 4};
  r = sb::encode_features(bad, 2, sink);
  EXPECT_EQ(r.error, sb::encode_error::nonfinite_value);
  EXPECT_EQ(r.index, 1u);
  EXPECT_EQ(sb::encode_features(std::vector<double>{1, 2, 3}, 2, sink).error, sb::encode_error::shape_mismatch);
  EXPECT_EQ(sb::encode_features(v, 0, sink).error, sb::encode_error::no_columns);
  EXPECT_EQ(calls, 0);
}

TEST(FeaturesEncoder, StopsWhenTheSinkRefuses) {
  std::vector<double> v(100'000, 1.5);
  int calls = 0;
  const auto r = sb::encode_features(v, 2, [&](std::string_view) { return ++calls < 2; });
  EXPECT_EQ(r.error, sb::encode_error::sink_failed);
  EXPECT_EQ(calls, 2);
}
