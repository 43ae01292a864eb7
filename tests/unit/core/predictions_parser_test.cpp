// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/predictions_parser.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace sb = plb::sandbox;
using E = sb::predictions_error;

namespace {
sb::predictions_result parse(std::string_view text, std::size_t rows, std::vector<double>& out,
                             sb::task_type task = sb::task_type::regression) {
  sb::predictions_options o;
  o.expected_rows = rows;
  o.task = task;
  return sb::parse_predictions(text, o, out);
}
}  // namespace

TEST(PredictionsParser, AcceptsTheContract) {
  std::vector<double> out;
  auto r = parse("{\"predictions\": [3.5, -1, 0, 1e2]}\n", 4, out);
  ASSERT_TRUE(r) << sb::message(r.error) << " at " << r.offset;
  EXPECT_EQ(out, (std::vector<double>{3.5, -1, 0, 100}));
  r = parse(" \t\r\n{\"predictions\":[]} \n", 0, out);
  EXPECT_TRUE(r) << sb::message(r.error);
  r = parse("{\"\\u0070redictions\":[0.5]}", 1, out, sb::task_type::binary_classification);
  EXPECT_TRUE(r) << "an escaped key is still the key";
  EXPECT_EQ(out, std::vector<double>{0.5});
  r = parse("{\"predictions\":[0,1,-0.0,1e-400]}", 4, out, sb::task_type::binary_classification);
  EXPECT_TRUE(r) << sb::message(r.error);
}

TEST(PredictionsParser, NumbersEqualStrtod) {
  std::mt19937_64 rng(3);
  std::string doc = "{\"predictions\":[";
  std::vector<double> want;
  for (int i = 0; i < 20'000; ++i) {
    const double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", 15 + i % 5, d);  // not always the shortest form
    if (!want.empty()) doc += ',';
    doc += buf;
    want.push_back(std::strtod(buf, nullptr));
  }
  doc += "]}";
  std::vector<double> out;
  ASSERT_TRUE(parse(doc, want.size(), out));
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(out[i]), std::bit_cast<std::uint64_t>(want[i])) << i;
}

TEST(PredictionsParser, NumbersSplitAcrossNoBufferStillExact) {
  std::vector<double> out;
  ASSERT_TRUE(parse("{\"predictions\":[9007199254740993, 18446744073709551617, -9223372036854775809]}", 3, out));
  EXPECT_EQ(out[0], 9007199254740992.0);
  EXPECT_EQ(out[1], 18446744073709551616.0);
  EXPECT_EQ(out[2], -9223372036854775808.0);
}

struct Bad {
  std::string name;
  std::string text;
  std::size_t rows;
  sb::task_type task;
  E error;
  std::size_t offset;
};
void PrintTo(const Bad& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.name)); }

class PredictionsRejects : public ::testing::TestWithParam<Bad> {};

TEST_P(PredictionsRejects, WithItsCodeAndOffset) {
  const Bad& b = GetParam();
  std::vector<double> out;
  const auto r = parse(b.text, b.rows, out, b.task);
  EXPECT_EQ(r.error, b.error) << sb::message(r.error) << " for " << b.text;
  EXPECT_EQ(r.offset, b.offset) << b.text;
  EXPECT_TRUE(out.empty()) << "a rejected document yields no predictions";
}

const auto R = sb::task_type::regression;
const auto B = sb::task_type::binary_classification;
std::string PrintBad(const ::testing::TestParamInfo<Bad>& i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Table, PredictionsRejects,
    ::testing::Values(
        Bad{"empty", "", 1, R, E::empty_output, 0}, Bad{"only_space", " \n", 1, R, E::empty_output, 2},
        Bad{"log_before", "loading model\n{\"predictions\":[1]}", 1, R, E::text_before_object, 0},
        Bad{"bom", "\xEF\xBB\xBF{\"predictions\":[1]}", 1, R, E::text_before_object, 0},
        Bad{"top_array", "[1]", 1, R, E::text_before_object, 0},
        Bad{"top_number", " 1", 1, R, E::text_before_object, 1},
        Bad{"log_after", "{\"predictions\":[1]}\ndone\n", 1, R, E::text_after_object, 20},
        Bad{"second_object", "{\"predictions\":[1]}{\"predictions\":[1]}", 1, R, E::text_after_object, 19},
        Bad{"truncated", "{\"predictions\":[1", 1, R, E::truncated, 17},
        Bad{"truncated_key", "{\"predic", 1, R, E::truncated, 8},
        Bad{"trailing_comma", "{\"predictions\":[1,]}", 1, R, E::malformed_json, 18},
        Bad{"comment", "{\"predictions\":[1]/*x*/}", 1, R, E::malformed_json, 18},
        Bad{"single_quotes", "{'predictions':[1]}", 1, R, E::malformed_json, 1},
        Bad{"invalid_utf8_key", "{\"pr\xFF\":[1]}", 1, R, E::invalid_utf8, 4},
        Bad{"overlong_utf8", "{\"\xC0\xAF\":[1]}", 1, R, E::invalid_utf8, 2},
        Bad{"lone_surrogate", "{\"\\ud800x\":[1]}", 1, R, E::invalid_escape, 8},
        Bad{"extra_key_after", "{\"predictions\":[1],\"note\":1}", 1, R, E::unexpected_key, 24},
        Bad{"extra_key_before", "{\"note\":1,\"predictions\":[1]}", 1, R, E::unexpected_key, 6},
        Bad{"long_key", "{\"predictionsXXXXXXXXXXXXXXXXX\":[1]}", 1, R, E::unexpected_key, 30},
        Bad{"duplicate_key", "{\"predictions\":[1],\"predictions\":[2]}", 1, R, E::duplicate_key, 31},
        Bad{"duplicate_escaped", "{\"predictions\":[1],\"predictio\\u006es\":[2]}", 1, R, E::duplicate_key, 36},
        Bad{"missing", "{}", 1, R, E::missing_predictions, 1},
        Bad{"not_array_number", "{\"predictions\":1}", 1, R, E::predictions_not_array, 16},
        Bad{"not_array_object", "{\"predictions\":{}}", 1, R, E::predictions_not_array, 15},
        Bad{"not_array_string", "{\"predictions\":\"1\"}", 1, R, E::predictions_not_array, 17},
        Bad{"not_array_null", "{\"predictions\":null}", 1, R, E::predictions_not_array, 15},
        Bad{"string_value", "{\"predictions\":[\"1\"]}", 1, R, E::string_value, 18},
        Bad{"bool_value", "{\"predictions\":[true]}", 1, R, E::boolean_value, 16},
        Bad{"null_value", "{\"predictions\":[null]}", 1, R, E::null_value, 16},
        Bad{"nested_array", "{\"predictions\":[[1]]}", 1, R, E::nested_array, 16},
        Bad{"nested_object", "{\"predictions\":[{}]}", 1, R, E::nested_object, 16},
        Bad{"nesting_abuse", "{\"predictions\":[" + std::string(100000, '['), 1, R, E::nested_array, 16},
        Bad{"nan", "{\"predictions\":[NaN]}", 1, R, E::nonfinite_literal, 16},
        Bad{"infinity", "{\"predictions\":[Infinity]}", 1, R, E::nonfinite_literal, 16},
        Bad{"minus_infinity", "{\"predictions\":[-Infinity]}", 1, R, E::nonfinite_literal, 17},
        Bad{"overflow", "{\"predictions\":[1e999]}", 1, R, E::number_out_of_range, 21},
        Bad{"overflow_digits", "{\"predictions\":[" + std::string(400, '9') + "]}", 1, R, E::number_out_of_range, 416},
        Bad{"too_many", "{\"predictions\":[1,2,3]}", 2, R, E::too_many_predictions, 21},
        Bad{"too_few", "{\"predictions\":[1]}", 2, R, E::too_few_predictions, 17},
        Bad{"none_for_rows", "{\"predictions\":[]}", 1, R, E::too_few_predictions, 16},
        Bad{"probability_high", "{\"predictions\":[0.5,1.0000001]}", 2, B, E::probability_out_of_range, 29},
        Bad{"probability_negative", "{\"predictions\":[-0.1]}", 1, B, E::probability_out_of_range, 20}),
    PrintBad);

TEST(PredictionsParser, OutputLargerThanTheCapIsRefusedUnread) {
  sb::predictions_options o;
  o.expected_rows = 1;
  o.max_bytes = 10;
  std::vector<double> out;
  const auto r = sb::parse_predictions("{\"predictions\":[1]}", o, out);
  EXPECT_EQ(r.error, E::output_too_large);
  EXPECT_EQ(r.offset, 10u);
}

TEST(PredictionsParser, EveryErrorHasADistinctMessage) {
  std::set<std::string_view> seen;
  for (int i = 0; i <= static_cast<int>(E::out_of_memory); ++i)
    EXPECT_TRUE(seen.insert(sb::message(static_cast<E>(i))).second) << i;
}
