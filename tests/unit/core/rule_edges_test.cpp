// SPDX-License-Identifier: Apache-2.0
// Each check of the core at its exact edge, in a test that names the rule. Written for the
// mutation table (ci/mutants.toml): every one of these failed under a mutant that the other unit
// tests let through (or that only the fuzz corpus replays caught).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/predictions_parser.hpp"
#include "plb/sandbox/sandbox_policy.hpp"

namespace sb = plb::sandbox;

namespace {

sb::csv_options small_csv() {
  sb::csv_options o;
  o.max_values = 4;
  o.max_cell_bytes = 16;
  o.max_header_bytes = 128;
  o.max_id_bytes = 8;
  return o;
}

sb::csv_result read(std::string_view csv, std::vector<std::string> features, std::string id = {}) {
  sb::feature_table t;
  return sb::read_features(csv, std::move(features), id, t, small_csv());
}

}  // namespace

TEST(LimitRules, OnlyDecimalDigitsNotTheNextByte) {
  const auto r = sb::parse_limit(sb::limit_field::wall_seconds, "1:");  // ':' follows '9' in ASCII
  EXPECT_EQ(r.error, sb::limit_parse_error::not_a_whole_number);
  EXPECT_EQ(r.offset, 1u);
}

TEST(LimitRules, AValuePast2To64IsRefusedNeverWrapped) {
  // 2^64 + 1 would wrap to 1, a valid wall time.
  EXPECT_EQ(sb::parse_limit(sb::limit_field::wall_seconds, "18446744073709551617").error,
            sb::limit_parse_error::out_of_bounds);
  EXPECT_EQ(sb::parse_limit(sb::limit_field::wall_seconds, "18446744073709551616").error,
            sb::limit_parse_error::out_of_bounds);
}

TEST(LimitRules, NoLeadingZeroButZeroItselfIsANumber) {
  EXPECT_EQ(sb::parse_limit(sb::limit_field::wall_seconds, "07").error, sb::limit_parse_error::leading_zero);
  EXPECT_EQ(sb::parse_limit(sb::limit_field::wall_seconds, "0").error, sb::limit_parse_error::out_of_bounds)
      << "0 parses (no leading-zero error) and is then out of bounds";
}

TEST(ImageIdRules, SixtyThreeDigitsIsAShortId) {
  const auto r = sb::parse_image_id("sha256:" + std::string(63, 'a'));
  EXPECT_EQ(r.error, sb::image_id_error::short_id);
}

TEST(CsvRules, BareCarriageReturnAtTheEndOfTheInput) {
  const auto r = read("a\n1\n2\r", {"a"});
  EXPECT_EQ(r.error, sb::csv_error::bare_carriage_return);
}

TEST(CsvRules, HeaderBytesAreCappedWhileTheNameIsStillOpen) {
  // A name that never ends is refused as soon as it passes the cap, not when (if ever) it ends.
  sb::csv_feature_reader reader({"a"}, "", small_csv());
  EXPECT_EQ(reader.feed(std::string(1000, 'a')).error, sb::csv_error::header_too_large);
}

TEST(CsvRules, NulInsideAQuotedField) {
  const auto r = read(std::string("a,b\n1,\"x\0y\"\n", 13), {"a", "b"});
  EXPECT_EQ(r.error, sb::csv_error::nul_byte);
  EXPECT_EQ(r.row, 2u);
  EXPECT_EQ(r.column, 2u);
}

TEST(CsvRules, QuotedCellAtExactlyItsLimit) {
  EXPECT_TRUE(read("a\n\"" + std::string(15, '1') + "2\"\n", {"a"})) << "16 bytes: at the limit";
  EXPECT_EQ(read("a\n\"" + std::string(16, '1') + "2\"\n", {"a"}).error, sb::csv_error::cell_too_long) << "17 bytes";
}

TEST(CsvRules, IdColumnAtExactlyItsLimit) {
  EXPECT_TRUE(read("i,a\nabcd,1\nefgh,2\n", {"a"}, "i")) << "8 ID bytes: at the limit";
  const auto r = read("i,a\nabcd,1\nefghi,2\n", {"a"}, "i");
  EXPECT_EQ(r.error, sb::csv_error::id_bytes_exceeded) << "9 ID bytes";
  EXPECT_EQ(r.row, 3u);
}

TEST(EncoderRules, InfinityIsNonfiniteToo) {
  std::string doc;
  const std::vector<double> v{1.0, std::numeric_limits<double>::infinity()};
  const auto r = sb::encode_features_to_string(v, 1, doc);
  EXPECT_EQ(r.error, sb::encode_error::nonfinite_value);
  EXPECT_EQ(r.index, 1u);
  EXPECT_TRUE(doc.empty());
}

TEST(EncoderRules, TheSizeBoundIsAnUpperBound) {
  // The widest doubles: the bound must cover them, or the exact check is skipped and the limit
  // passed silently.
  const std::vector<double> v(100, -2.2250738585072014e-308);
  EXPECT_GE(sb::encoded_size_bound(v.size(), 1), sb::encoded_size(v, 1).bytes);
  std::string doc;
  sb::encode_options o;
  o.max_bytes = sb::encoded_size(v, 1).bytes - 1;
  EXPECT_EQ(sb::encode_features_to_string(v, 1, doc, o).error, sb::encode_error::too_large);
}

TEST(PredictionRules, OutputOneByteOverTheCap) {
  std::vector<double> out;
  sb::predictions_options o;
  o.expected_rows = 1;
  const std::string doc = "{\"predictions\":[1]}";
  o.max_bytes = doc.size();
  EXPECT_TRUE(sb::parse_predictions(doc, o, out)) << "exactly at the cap";
  o.max_bytes = doc.size() - 1;
  EXPECT_EQ(sb::parse_predictions(doc, o, out).error, sb::predictions_error::output_too_large);
}

TEST(PolicyRules, ACommaAloneInTheScriptPath) {
  sb::sandbox_policy_builder b;
  b.script("/srv/run,1/model.py");
  EXPECT_EQ(b.build().error, sb::policy_error::script_path_unsafe);
}

TEST(PolicyRules, TheOwnerIsExactlyThreeFields) {
  sb::sandbox_policy_builder b;
  b.owner("ab-cd:1:2:3");
  EXPECT_EQ(b.build().error, sb::policy_error::owner_malformed);
}
