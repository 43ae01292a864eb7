// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/csv_reader.hpp"

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
using E = sb::csv_error;

namespace {
sb::csv_result read(std::string_view csv, std::vector<std::string> features, sb::feature_table& t, std::string id = {},
                    sb::csv_options o = {}) {
  return sb::read_features(csv, std::move(features), std::move(id), t, o);
}
}  // namespace

TEST(CsvReader, ExtractsFeaturesInRequestedOrderAndTheIdVerbatim) {
  sb::feature_table t;
  const auto r = read("id,a,target,b\nx1,1.5,9,2\n\"x,2\",-3,9,4e2\n", {"b", "a"}, t, "id");
  ASSERT_TRUE(r) << sb::message(r.error);
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.columns(), 2u);
  EXPECT_EQ(t.values, (std::vector<double>{2, 1.5, 400, -3}));
  EXPECT_EQ(t.ids, (std::vector<std::string>{"x1", "x,2"}));
  EXPECT_EQ(t.features, (std::vector<std::string>{"b", "a"}));
}

TEST(CsvReader, Rfc4180QuotingCrlfAndBom) {
  sb::feature_table t;
  const auto r = read("\xEF\xBB\xBF\"i\"\"d\",\"f\"\r\n\"a\"\"b\r\nc\",\"7\"\r\nz,8", {"f"}, t, "i\"d");
  ASSERT_TRUE(r) << sb::message(r.error) << " row " << r.row << " col " << r.column;
  EXPECT_EQ(t.ids, (std::vector<std::string>{"a\"b\r\nc", "z"}));
  EXPECT_EQ(t.values, (std::vector<double>{7, 8}));
}

TEST(CsvReader, AnyChunkingGivesTheSameTable) {
  const std::string csv = "\xEF\xBB\xBFid,x,y\r\n\"q\"\"1\",0.1,-2e-3\n\"r\nr\",3,4\r\n";
  sb::feature_table whole;
  ASSERT_TRUE(read(csv, {"y", "x"}, whole, "id"));
  for (std::size_t step = 1; step <= csv.size(); ++step) {
    sb::csv_feature_reader reader({"y", "x"}, "id");
    for (std::size_t i = 0; i < csv.size(); i += step)
      ASSERT_TRUE(reader.feed(std::string_view(csv).substr(i, step))) << step;
    ASSERT_TRUE(reader.finish()) << step;
    EXPECT_EQ(reader.table().values, whole.values) << step;
    EXPECT_EQ(reader.table().ids, whole.ids) << step;
  }
}

TEST(CsvReader, ShortInputsAroundTheBom) {
  sb::feature_table t;
  EXPECT_EQ(read("", {"a"}, t).error, E::missing_header);
  EXPECT_EQ(read("\xEF\xBB\xBF", {"a"}, t).error, E::missing_header);
  EXPECT_EQ(read("a", {"a"}, t).error, E::no_rows);
  EXPECT_EQ(read("\xEF\xBB", {"a"}, t).error, E::missing_feature);
  ASSERT_TRUE(read("a\n1", {"a"}, t));
  EXPECT_EQ(t.values, std::vector<double>{1});
}

TEST(CsvReader, ConvertsCorrectlyRounded) {
  std::mt19937_64 rng(7);
  std::string csv = "v\n";
  std::vector<double> want;
  for (int i = 0; i < 5000; ++i) {
    const double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    csv += buf;
    csv += '\n';
    want.push_back(std::strtod(buf, nullptr));
  }
  sb::feature_table t;
  ASSERT_TRUE(read(csv, {"v"}, t));
  ASSERT_EQ(t.values.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(t.values[i]), std::bit_cast<std::uint64_t>(want[i])) << i;
}

TEST(CsvReader, NumberForms) {
  sb::feature_table t;
  ASSERT_TRUE(read("v\n-0\n+1\n.5\n5.\n1E3\n1e-400\n-1e-400\n4.9e-324\n1.7976931348623157e308\n", {"v"}, t));
  ASSERT_EQ(t.values.size(), 9u);
  EXPECT_TRUE(std::signbit(t.values[0]));
  EXPECT_EQ(t.values[1], 1.0);
  EXPECT_EQ(t.values[2], 0.5);
  EXPECT_EQ(t.values[3], 5.0);
  EXPECT_EQ(t.values[4], 1000.0);
  EXPECT_EQ(t.values[5], 0.0);
  EXPECT_FALSE(std::signbit(t.values[5]));
  EXPECT_TRUE(std::signbit(t.values[6]) && t.values[6] == 0.0);
  EXPECT_EQ(t.values[7], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(t.values[8], std::numeric_limits<double>::max());
}

struct Bad {
  std::string name;
  std::string csv;
  std::vector<std::string> features;
  std::string id;
  E error;
  std::size_t row, column;
  std::string column_name;
};
void PrintTo(const Bad& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.name)); }

class CsvRejects : public ::testing::TestWithParam<Bad> {};

TEST_P(CsvRejects, WithRowColumnAndName) {
  const Bad& b = GetParam();
  sb::csv_options o;
  o.max_values = 4;
  o.max_cell_bytes = 16;
  o.max_header_bytes = 128;  // three one-byte names fit (3 x 33), a fourth does not
  o.max_id_bytes = 8;
  sb::feature_table t;
  const auto r = read(b.csv, b.features, t, b.id, o);
  EXPECT_EQ(r.error, b.error) << sb::message(r.error);
  EXPECT_EQ(r.row, b.row);
  EXPECT_EQ(r.column, b.column);
  EXPECT_EQ(r.column_name, b.column_name);
  EXPECT_TRUE(t.values.empty()) << "a failed read must not hand out a partial table";
}

std::string PrintBad(const ::testing::TestParamInfo<Bad>& i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Table, CsvRejects,
    ::testing::Values(Bad{"no_features", "a\n1\n", {}, "", E::no_features_requested, 0, 0, ""},
                      Bad{"repeated_feature", "a\n1\n", {"a", "a"}, "", E::repeated_feature, 0, 0, "a"},
                      Bad{"id_is_feature", "a\n1\n", {"a"}, "a", E::id_column_is_feature, 0, 0, "a"},
                      Bad{"empty", "", {"a"}, "", E::missing_header, 0, 0, ""},
                      Bad{"header_too_large",
                          std::string(40, 'a') + "," + std::string(60, 'b') + "\n",
                          {"a"},
                          "",
                          E::header_too_large,
                          1,
                          2,
                          ""},
                      // Few bytes, many names: each name's overhead counts, so the fourth one-byte name is refused.
                      Bad{"header_too_many_names", "a,b,c,d\n1,2,3,4\n", {"a"}, "", E::header_too_large, 1, 4, ""},
                      Bad{"empty_column_name", "a,,b\n1,2,3\n", {"a"}, "", E::empty_column_name, 1, 2, ""},
                      Bad{"empty_last_column_name", "a,b,\n1,2,3\n", {"a"}, "", E::empty_column_name, 1, 3, ""},
                      Bad{"empty_quoted_column_name", "a,\"\"\n1,2\n", {"a"}, "", E::empty_column_name, 1, 2, ""},
                      Bad{"duplicate_header", "a,b,a\n1,2,3\n", {"a"}, "", E::duplicate_header, 1, 3, "a"},
                      Bad{"missing_feature", "a,b\n1,2\n", {"c"}, "", E::missing_feature, 1, 0, "c"},
                      Bad{"missing_id", "a,b\n1,2\n", {"a"}, "id", E::missing_id_column, 1, 0, "id"},
                      Bad{"short_row", "a,b\n1,2\n3\n", {"a"}, "", E::ragged_row, 3, 2, ""},
                      Bad{"long_row", "a,b\n1,2,3\n", {"a"}, "", E::ragged_row, 2, 3, ""},
                      Bad{"unterminated_quote", "a,b\n1,\"2\n", {"a"}, "", E::unterminated_quote, 2, 2, ""},
                      Bad{"quote_in_unquoted", "a,b\n1,2\"\n", {"a"}, "", E::quote_in_unquoted_field, 2, 2, "b"},
                      Bad{"text_after_quote", "a,b\n\"1\"x,2\n", {"a"}, "", E::text_after_closing_quote, 2, 1, "a"},
                      Bad{"bare_cr", "a,b\r1,2\n", {"a"}, "", E::bare_carriage_return, 1, 2, ""},
                      Bad{"nul_byte", std::string("a,b\n1,\0\n", 8), {"a"}, "", E::nul_byte, 2, 2, "b"},
                      Bad{"empty_cell", "a,b\n,2\n", {"a"}, "", E::empty_cell, 2, 1, "a"},
                      Bad{"nan", "a,b\n1,NaN\n", {"b"}, "", E::nonfinite_number, 2, 2, "b"},
                      Bad{"inf", "a,b\n1,-inf\n", {"b"}, "", E::nonfinite_number, 2, 2, "b"},
                      Bad{"infinity", "a,b\n1,Infinity\n", {"b"}, "", E::nonfinite_number, 2, 2, "b"},
                      Bad{"hex", "a,b\n1,0x1A\n", {"b"}, "", E::not_a_number, 2, 2, "b"},
                      Bad{"thousands", "a,b\n1,\"1,000\"\n", {"b"}, "", E::not_a_number, 2, 2, "b"},
                      Bad{"space", "a,b\n1, 2\n", {"b"}, "", E::not_a_number, 2, 2, "b"},
                      Bad{"text", "a,b\n1,two\n", {"b"}, "", E::not_a_number, 2, 2, "b"},
                      Bad{"overflow", "a,b\n1,1e999\n", {"b"}, "", E::number_out_of_range, 2, 2, "b"},
                      Bad{"cell_too_long", "a,b\n1,11111111111111111\n", {"b"}, "", E::cell_too_long, 2, 2, "b"},
                      Bad{"too_many_values", "a,b\n1,2\n3,4\n5,6\n", {"a", "b"}, "", E::too_many_values, 4, 1, "a"},
                      Bad{"id_bytes", "i,a\nabcde,1\nfghij,2\n", {"a"}, "i", E::id_bytes_exceeded, 3, 1, "i"},
                      Bad{"no_rows", "a,b\n", {"a"}, "", E::no_rows, 0, 0, ""},
                      Bad{"blank_line", "a,b\n1,2\n\n3,4\n", {"a"}, "", E::empty_cell, 3, 1, "a"}),
    PrintBad);

TEST(CsvReader, UnselectedColumnsAreNotBuffered) {
  // A huge unselected cell passes even though selected cells are capped at 16 bytes.
  sb::csv_options o;
  o.max_cell_bytes = 16;
  sb::feature_table t;
  const std::string csv = "a,junk\n1," + std::string(1 << 20, 'x') + "\n";
  ASSERT_TRUE(read(csv, {"a"}, t, {}, o));
  EXPECT_EQ(t.values, std::vector<double>{1});
}

TEST(CsvReader, ErrorSticks) {
  sb::csv_feature_reader reader({"a"});
  EXPECT_EQ(reader.feed("a\nx\n").error, E::not_a_number);
  EXPECT_EQ(reader.feed("1\n").error, E::not_a_number);
  EXPECT_EQ(reader.finish().error, E::not_a_number);
}

TEST(CsvReader, EveryErrorHasADistinctMessage) {
  std::set<std::string_view> seen;
  for (int i = 0; i <= static_cast<int>(E::out_of_memory); ++i)
    EXPECT_TRUE(seen.insert(sb::message(static_cast<E>(i))).second) << i;
}
