// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/batch_manifest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sb = plb::sandbox;
using E = sb::manifest_error;
using F = sb::manifest_field;

namespace {

const std::string hex64 = "88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870";

std::string line(const std::string& id, const std::string& extra = "") {
  return R"({"id": ")" + id + R"(", "model": "m.py", "model_sha256": ")" + hex64 + "\"" + extra + "}";
}

sb::manifest_result parse(const std::string& text, std::vector<sb::manifest_entry>& out,
                          const sb::manifest_options& o = {}) {
  return sb::parse_manifest(text, o, out);
}

}  // namespace

TEST(BatchManifest, ReadsEveryFieldOfALine) {
  std::vector<sb::manifest_entry> out;
  const std::string text = line("team-07") + "\n" + R"({"model_sha256": ")" + hex64 +
                           R"(", "id": "b.2_x", "model": "s\u00e9/\"q\".py", "runtime_image": "sha256:)" + hex64 +
                           R"(", "data": "in.csv", "features": ["a", "b c"], "task_type": "binary-classification",)"
                           R"( "id_column": "sample_id", "seconds": 20, "memory_mb": 256})" +
                           "\r\n";
  const auto r = parse(text, out);
  ASSERT_TRUE(r) << sb::message(r.error) << " line " << r.line << " column " << r.column;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "team-07");
  EXPECT_EQ(out[0].line, 1u);
  EXPECT_FALSE(out[0].data.has_value());
  EXPECT_FALSE(out[0].wall_seconds.has_value());
  const auto& b = out[1];
  EXPECT_EQ(b.line, 2u);
  EXPECT_EQ(b.offset, line("team-07").size() + 1);
  EXPECT_EQ(b.model, "s\xc3\xa9/\"q\".py");
  EXPECT_EQ(*b.runtime_image, "sha256:" + hex64);
  EXPECT_EQ(*b.data, "in.csv");
  EXPECT_EQ(*b.features, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(*b.task, sb::task_type::binary_classification);
  EXPECT_EQ(*b.id_column, "sample_id");
  EXPECT_EQ(*b.wall_seconds, 20u);
  EXPECT_EQ(*b.memory_mib, 256u);
}

TEST(BatchManifest, IdsAreFileNamesThatCannotEscape) {
  EXPECT_TRUE(sb::is_valid_batch_id("a"));
  EXPECT_TRUE(sb::is_valid_batch_id("A9._-z"));
  EXPECT_TRUE(sb::is_valid_batch_id(std::string(128, 'x')));
  for (const std::string bad : {"", ".", "..", ".hidden", "-rf", "_x", "a/b", "a b", "=cmd", "a\\b", "\xc3\xa9"})
    EXPECT_FALSE(sb::is_valid_batch_id(bad)) << bad;
  EXPECT_FALSE(sb::is_valid_batch_id(std::string(129, 'x')));
}

struct Case {
  std::string name;
  std::string text;
  E error;
  std::size_t line;
  std::size_t column;  // 0: not checked
  F field;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BatchManifestRefuses : public ::testing::TestWithParam<Case> {};

TEST_P(BatchManifestRefuses, NamingLineColumnAndField) {
  const Case& c = GetParam();
  std::vector<sb::manifest_entry> out;
  const auto r = parse(c.text, out);
  EXPECT_EQ(r.error, c.error) << sb::message(r.error);
  EXPECT_EQ(r.line, c.line);
  if (c.column != 0) {
    EXPECT_EQ(r.column, c.column);
  }
  EXPECT_EQ(r.field, c.field);
  EXPECT_TRUE(out.empty()) << "nothing of a refused manifest is handed out";
  EXPECT_FALSE(sb::message(r.error).empty());
}

const std::string ok = line("a") + "\n";

// clang-format off
INSTANTIATE_TEST_SUITE_P(Rules, BatchManifestRefuses, ::testing::Values(
    Case{"empty", "", E::empty_manifest, 0, 0, F::none},
    Case{"blank_line_between", ok + "\n" + line("b"), E::empty_line, 2, 0, F::none},
    Case{"whitespace_line", ok + " \t\n", E::empty_line, 2, 0, F::none},
    Case{"array_line", ok + "[1]", E::not_an_object, 2, 1, F::none},
    Case{"duplicate_key", R"({"id": "a", "id": "b", "model": "m", "model_sha256": ")" + hex64 + "\"}", E::duplicate_key, 1, 13, F::id},
    Case{"duplicate_model", R"({"id": "a", "model": "m", "model": "n", "model_sha256": ")" + hex64 + "\"}", E::duplicate_key, 1, 27, F::model},
    Case{"unknown_key", line("a", R"(, "memory_gb": 1)"), E::unknown_key, 1, 0, F::none},
    Case{"missing_digest", R"({"id": "a", "model": "m"})", E::missing_field, 1, 1, F::model_sha256},
    Case{"missing_id", R"({"model": "m", "model_sha256": ")" + hex64 + "\"}", E::missing_field, 1, 1, F::id},
    Case{"bundle_without_digest", line("a", R"(, "bundle": "b")"), E::missing_field, 1, 1, F::bundle_sha256},
    Case{"digest_without_bundle", line("a", R"(, "bundle_sha256": ")" + hex64 + "\""), E::missing_field, 1, 1, F::bundle},
    Case{"bundle_digest_short", line("a", R"(, "bundle": "b", "bundle_sha256": "abc")"), E::bad_digest, 1, 0, F::bundle_sha256},
    Case{"bundle_empty", line("a", R"(, "bundle": "", "bundle_sha256": ")" + hex64 + "\""), E::empty_value, 1, 0, F::bundle},
    Case{"bundle_number", line("a", R"(, "bundle": 1, "bundle_sha256": ")" + hex64 + "\""), E::wrong_type, 1, 0, F::bundle},
    Case{"bundle_twice", line("a", R"(, "bundle": "b", "bundle": "c", "bundle_sha256": ")" + hex64 + "\""), E::duplicate_key, 1, 0, F::bundle},
    Case{"seconds_as_string", line("a", R"(, "seconds": "30")"), E::wrong_type, 1, 0, F::seconds},
    Case{"seconds_negative", line("a", R"(, "seconds": -1)"), E::bad_limit, 1, 0, F::seconds},
    Case{"seconds_fraction", line("a", R"(, "seconds": 1.5)"), E::bad_limit, 1, 0, F::seconds},
    Case{"seconds_zero", line("a", R"(, "seconds": 0)"), E::bad_limit, 1, 0, F::seconds},
    Case{"memory_too_large", line("a", R"(, "memory_mb": 65537)"), E::bad_limit, 1, 0, F::memory_mb},
    Case{"seconds_true", line("a", R"(, "seconds": true)"), E::wrong_type, 1, 0, F::seconds},
    Case{"model_number", R"({"id": "a", "model": 7, "model_sha256": ")" + hex64 + "\"}", E::wrong_type, 1, 22, F::model},
    Case{"features_string", line("a", R"(, "features": "a")"), E::wrong_type, 1, 0, F::features},
    Case{"features_number_item", line("a", R"(, "features": ["a", 1])"), E::wrong_type, 1, 0, F::features},
    Case{"features_empty", line("a", R"(, "features": [])"), E::empty_value, 1, 0, F::features},
    Case{"features_duplicate", line("a", R"(, "features": ["a", "a"])"), E::duplicate_feature, 1, 0, F::features},
    Case{"feature_empty_name", line("a", R"(, "features": [""])"), E::empty_value, 1, 0, F::features},
    Case{"id_slash", line("../x"), E::bad_id, 1, 8, F::id},
    Case{"id_dot", line("."), E::bad_id, 1, 8, F::id},
    Case{"id_too_long", line(std::string(129, 'x')), E::bad_id, 1, 8, F::id},
    Case{"id_reserved", line("batch-summary"), E::reserved_id, 1, 8, F::id},
    Case{"id_empty", line(""), E::empty_value, 1, 8, F::id},
    Case{"id_duplicate", ok + line("b") + "\n" + line("a") + "\n" + line("b"), E::duplicate_id, 3, 0, F::id},
    Case{"digest_short", R"({"id": "a", "model": "m", "model_sha256": "abc"})", E::bad_digest, 1, 0, F::model_sha256},
    Case{"digest_65_digits", R"({"id": "a", "model": "m", "model_sha256": ")" + hex64 + "0\"}", E::bad_digest, 1, 0, F::model_sha256},
    Case{"image_tag", line("a", R"(, "runtime_image": "python:3")"), E::bad_image_id, 1, 0, F::runtime_image},
    Case{"task_type", line("a", R"(, "task_type": "ranking")"), E::bad_task_type, 1, 0, F::task_type},
    Case{"trailing", line("a") + " x", E::trailing_characters, 1, 0, F::none},
    Case{"two_objects", line("a") + line("b"), E::trailing_characters, 1, 0, F::none},
    Case{"unterminated", R"({"id": "a)", E::unterminated_string, 1, 8, F::id},
    Case{"raw_tab_in_string", "{\"id\": \"a\tb\"}", E::control_character, 1, 10, F::id},
    Case{"raw_nul_in_string", std::string("{\"id\": \"a\0b\"}", 13), E::nul_character, 1, 10, F::id},
    Case{"escaped_nul", line("a", R"(, "data": "x\u0000y")"), E::nul_character, 1, 0, F::data},
    Case{"bad_escape", line("a", R"(, "data": "\q")"), E::invalid_escape, 1, 0, F::data},
    Case{"lone_surrogate", line("a", R"(, "data": "\ud800x")"), E::invalid_escape, 1, 0, F::data},
    Case{"lone_last_low_surrogate", line("a", R"(, "data": "\udfff")"), E::invalid_escape, 1, 0, F::data},
    Case{"raw_unit_separator", "{\"id\": \"a\x1f\"}", E::control_character, 1, 10, F::id},
    Case{"overlong_utf8", line("a", ", \"data\": \"\xc0\xaf\""), E::invalid_utf8, 1, 0, F::data},
    Case{"utf8_surrogate", line("a", ", \"data\": \"\xed\xa0\x80\""), E::invalid_utf8, 1, 0, F::data},
    Case{"missing_colon", R"({"id" "a"})", E::expected_colon, 1, 7, F::id},
    Case{"missing_value", R"({"id": })", E::expected_value, 1, 8, F::id},
    Case{"bare_key", R"({id: "a"})", E::expected_key, 1, 2, F::none},
    Case{"missing_comma", R"({"id": "a" "model": "m"})", E::expected_comma_or_end, 1, 12, F::none}));
// clang-format on

TEST(BatchManifest, BoundsComeFromTheOptions) {
  std::vector<sb::manifest_entry> out;
  sb::manifest_options o;
  o.max_lines = 2;
  EXPECT_TRUE(parse(ok + line("b") + "\n", out, o));
  auto r = parse(ok + line("b") + "\n" + line("c"), out, o);
  EXPECT_EQ(r.error, E::too_many_lines);
  EXPECT_EQ(r.line, 3u);

  o = {};
  o.max_line_bytes = line("a").size();
  EXPECT_TRUE(parse(ok, out, o));
  r = parse(ok + line("bb"), out, o);
  EXPECT_EQ(r.error, E::line_too_long);
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.column, o.max_line_bytes + 1);

  o = {};
  o.max_bytes = ok.size() - 1;
  EXPECT_EQ(parse(ok, out, o).error, E::too_large);

  o = {};
  o.max_features = 2;
  EXPECT_TRUE(parse(line("a", R"(, "features": ["x", "y"])"), out, o));
  EXPECT_EQ(parse(line("a", R"(, "features": ["x", "y", "z"])"), out, o).error, E::too_many_features);
}

TEST(BatchManifest, DecodesEscapesToUtf8) {
  std::vector<sb::manifest_entry> out;
  ASSERT_TRUE(parse(line("a", R"(, "data": "\ud83d\ude00\t\/\\")"), out));
  EXPECT_EQ(*out[0].data, "\xf0\x9f\x98\x80\t/\\");
}

TEST(BatchManifest, EveryFieldHasItsName) {
  for (std::size_t i = 1; i < sb::manifest_field_names.size(); ++i) EXPECT_FALSE(sb::name(static_cast<F>(i)).empty());
  EXPECT_EQ(sb::name(F::memory_mb), "memory_mb");
}

// A line's bundle and its digest, both or neither (the refusals are in the Rules table).
TEST(BatchManifest, ReadsABundleAndItsDigest) {
  std::vector<sb::manifest_entry> out;
  const auto r =
      parse(line("a", R"(, "bundle": "models/07", "bundle_sha256": ")" + hex64 + "\"") + "\n" + line("b"), out);
  ASSERT_TRUE(r) << sb::message(r.error);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(*out[0].bundle, "models/07");
  EXPECT_EQ(*out[0].bundle_sha256, hex64);
  EXPECT_FALSE(out[1].bundle);
  EXPECT_FALSE(out[1].bundle_sha256);
  EXPECT_EQ(sb::name(F::bundle), "bundle");
  EXPECT_EQ(sb::name(F::bundle_sha256), "bundle_sha256");
}
