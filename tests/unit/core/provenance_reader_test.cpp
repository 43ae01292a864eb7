// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/provenance_reader.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace sb = plb::sandbox;

namespace {

sb::provenance_record sample() {
  sb::provenance_record p;
  p.tool_version = "0.1.0";
  p.model_sha256 = sb::sha256_of(std::string_view("model")).digest;
  p.runtime_image = sb::parse_image_id("sha256:" + std::string(64, 'b')).id;
  p.runtime_name = "runsc";
  p.runtime_version = "runsc version 0.0~20240729.0";
  p.runtime_release = "20240729";
  p.runtime_platform = "systrap";
  p.limits.wall_seconds = 12;
  p.limits.memory_mib = 256;
  p.task = sb::task_type::binary_classification;
  p.features = {"a", "b \"quoted\"\n"};
  p.id_column = "id";
  p.rows = 3;
  p.input_sha256 = sb::sha256_of(std::string_view("csv")).digest;
  p.predictions_sha256 = sb::sha256_of(std::string_view("out")).digest;
  p.started_at = "2026-11-29T08:00:00Z";
  p.usage = {1.25, 0.5, 1234567, 42, 7};
  p.model_path = "/srv/m.py";
  p.data_path = "/srv/in.csv";
  p.input_bytes = 3;
  p.predictions_path = "/srv/out.csv";
  return p;
}

// The rendered record with `key` (a path like "limits.wall_seconds") set to `v`, or removed.
std::string edited(const std::string& key, std::optional<boost::json::value> v) {
  auto o = sb::to_json(sample());
  boost::json::object* at = &o;
  std::string k = key;
  if (const auto dot = key.find('.'); dot != std::string::npos) {
    at = &o[key.substr(0, dot)].as_object();
    k = key.substr(dot + 1);
  }
  if (v)
    (*at)[k] = *v;
  else
    at->erase(k);
  return boost::json::serialize(o);
}

}  // namespace

TEST(ProvenanceReader, ReadsBackWhatRenderJsonWrites) {
  const auto p = sb::parse_provenance(sb::render_json(sample()));
  ASSERT_TRUE(p) << sb::message(p.error) << " " << p.field;
  const auto& r = p.record;
  EXPECT_EQ(r.model_sha256.hex(), sample().model_sha256.hex());
  EXPECT_EQ(r.runtime_image->str(), "sha256:" + std::string(64, 'b'));
  EXPECT_EQ(r.runtime_release, "20240729");
  EXPECT_EQ(r.runtime_platform, "systrap");
  EXPECT_EQ(r.limits, sample().limits);
  EXPECT_EQ(r.task, sb::task_type::binary_classification);
  EXPECT_EQ(r.features, sample().features);
  EXPECT_EQ(r.id_column, "id");
  EXPECT_EQ(r.rows, 3u);
  EXPECT_EQ(r.input_sha256.hex(), sample().input_sha256.hex());
  EXPECT_EQ(r.predictions_sha256.hex(), sample().predictions_sha256.hex());
  EXPECT_EQ(r.usage.memory_peak_bytes, 1234567u);
  EXPECT_DOUBLE_EQ(r.usage.wall_seconds, 1.25);
  EXPECT_EQ(r.model_path, "/srv/m.py");
  EXPECT_EQ(r.data_path, "/srv/in.csv");
  EXPECT_EQ(r.input_bytes, 3u);
  EXPECT_EQ(r.predictions_path, "/srv/out.csv");
  EXPECT_EQ(r.outcome, sb::verdict::success);
}

TEST(ProvenanceReader, AnOlderRecordWithoutPathsAndNullsReads) {
  auto o = sb::to_json(sample());
  o.erase("model_path");
  o.erase("data_path");
  o.erase("input_bytes");
  o.erase("predictions_path");  // before issue 41: verify refuses such a record, the reader reads it
  o["id_column"] = nullptr;
  const auto p = sb::parse_provenance(boost::json::serialize(o));
  ASSERT_TRUE(p) << p.field;
  EXPECT_TRUE(p.record.model_path.empty());
  EXPECT_TRUE(p.record.predictions_path.empty());
  EXPECT_TRUE(p.record.id_column.empty());
  // Present, each is held to its type.
  EXPECT_EQ(sb::parse_provenance(edited("predictions_path", boost::json::value(1))).field, "predictions_path");
  EXPECT_EQ(sb::parse_provenance(edited("input_bytes", boost::json::value(-1))).field, "input_bytes");
}

// A record sealed before the bundle's bounds existed has none of them: they bound nothing in a run
// without a bundle, so each reads as its default, and every other limit is still required.
TEST(ProvenanceReader, ARecordWithoutTheBundlesBoundsReadsThemAsDefaults) {
  auto o = sb::to_json(sample());
  auto& limits = o["limits"].as_object();
  for (const char* k : {"bundle_mib", "bundle_files", "bundle_depth", "bundle_path_bytes"}) {
    ASSERT_TRUE(limits.contains(k)) << k << " is rendered";
    limits.erase(k);
  }
  const auto p = sb::parse_provenance(boost::json::serialize(o));
  ASSERT_TRUE(p) << sb::message(p.error) << " " << p.field;
  EXPECT_EQ(p.record.limits, sample().limits);
  EXPECT_EQ(p.record.limits.bundle_mib, sb::SandboxLimits{}.bundle_mib);
}

TEST(ProvenanceReader, EachProblemIsTypedAndNamesItsField) {
  using E = sb::provenance_error;
  const struct {
    std::string key;
    std::optional<boost::json::value> value;
    E error;
  } cases[] = {
      {"schema", boost::json::value("plb-sandbox/provenance/1"), E::wrong_schema},  // before the run's clock
      {"schema", boost::json::value("plb-sandbox/provenance/3"), E::wrong_schema},
      {"surprise", boost::json::value(1), E::unknown_field},
      {"limits.surprise", boost::json::value(1), E::unknown_field},
      {"model_sha256", std::nullopt, E::missing_field},
      {"runtime.release", std::nullopt, E::missing_field},
      {"model_sha256", boost::json::value(std::string(64, 'A')), E::bad_value},
      {"model_sha256", boost::json::value(1), E::wrong_type},
      {"runtime_image", boost::json::value("busybox:latest"), E::bad_value},
      {"runtime.release", boost::json::value("2024\n0729"), E::bad_value},
      {"limits.wall_seconds", boost::json::value(0), E::bad_value},
      {"limits.wall_seconds", boost::json::value(3601), E::bad_value},
      {"limits.wall_seconds", boost::json::value(1.5), E::bad_value},
      {"limits.pids_limit", boost::json::value(1), E::bad_value},
      {"task_type", boost::json::value("ranking"), E::bad_value},
      {"verdict", boost::json::value("won"), E::bad_value},
      {"usage.wall_seconds", boost::json::value(-1.0), E::bad_value},
      {"usage.startup_seconds", boost::json::value(-1.0), E::bad_value},
      {"limits.start_seconds", boost::json::value(4), E::bad_value},
      {"limits.bundle_mib", boost::json::value(0), E::bad_value},
      {"limits.bundle_path_bytes", boost::json::value(4097), E::bad_value},
      {"limits.script_mib", std::nullopt, E::missing_field},
      {"usage", boost::json::value("fast"), E::wrong_type},
      {"features", boost::json::array{1}, E::wrong_type},
      {"features", boost::json::array{""}, E::bad_value},
      {"rows", boost::json::value(-3), E::bad_value},
  };
  for (const auto& c : cases) {
    const auto p = sb::parse_provenance(edited(c.key, c.value));
    EXPECT_EQ(p.error, c.error) << c.key << ": " << sb::message(p.error) << " at " << p.field;
    if (c.error != E::unknown_field) {
      EXPECT_EQ(p.field, c.key);
    }
  }
}

TEST(ProvenanceReader, RefusesDuplicatesTrailingBytesNonObjectsAndHugeInput) {
  const std::string text = sb::render_json(sample());
  std::string twice = text;
  twice.insert(1, "\"rows\":4,");
  const auto dup = sb::parse_provenance(twice);
  EXPECT_EQ(dup.error, sb::provenance_error::duplicate_key);
  std::string nested = text;
  nested.insert(nested.find("\"release\""), "\"release\":\"x\",");
  EXPECT_EQ(sb::parse_provenance(nested).error, sb::provenance_error::duplicate_key);
  EXPECT_EQ(sb::parse_provenance(text + "{}").error, sb::provenance_error::not_json);
  EXPECT_EQ(sb::parse_provenance("").error, sb::provenance_error::not_json);
  EXPECT_EQ(sb::parse_provenance("[1]").error, sb::provenance_error::not_an_object);
  EXPECT_EQ(sb::parse_provenance(std::string(sb::max_provenance_bytes + 1, ' ')).error,
            sb::provenance_error::too_large);
  for (int e = 0; e <= static_cast<int>(sb::provenance_error::bad_value); ++e)
    EXPECT_FALSE(sb::message(static_cast<sb::provenance_error>(e)).empty());
}

// A bundle run's four fields round-trip; a run without a bundle writes none of them (its record is
// what it was before bundles), and such a record, as an older tool's, reads as no bundle.
TEST(ProvenanceReader, TheBundleRoundTripsAndItsAbsenceReadsAsNone) {
  auto with = sample();
  with.bundle_sha256 = sb::sha256_of(std::string_view("listing")).digest;
  with.bundle_bytes = 47'185'920;
  with.bundle_files = 3;
  with.bundle_path = "/srv/bundles/resnet";
  const auto o = sb::to_json(with);
  EXPECT_EQ(o.at("bundle_sha256").as_string(), with.bundle_sha256->hex());
  EXPECT_EQ(o.at("bundle_path").as_string(), "/srv/bundles/resnet");
  const auto p = sb::parse_provenance(sb::render_json(with));
  ASSERT_TRUE(p) << sb::message(p.error) << " " << p.field;
  ASSERT_TRUE(p.record.bundle_sha256);
  EXPECT_EQ(p.record.bundle_sha256->hex(), with.bundle_sha256->hex());
  EXPECT_EQ(p.record.bundle_bytes, 47'185'920u);
  EXPECT_EQ(p.record.bundle_files, 3u);
  EXPECT_EQ(p.record.bundle_path, "/srv/bundles/resnet");

  const auto without = sb::to_json(sample());
  for (const char* key : {"bundle_sha256", "bundle_bytes", "bundle_files", "bundle_path"})
    EXPECT_FALSE(without.contains(key)) << key;
  const auto old = sb::parse_provenance(sb::render_json(sample()));
  ASSERT_TRUE(old);
  EXPECT_FALSE(old.record.bundle_sha256);
  EXPECT_EQ(old.record.bundle_bytes, 0u);
  EXPECT_EQ(old.record.bundle_files, 0u);
  EXPECT_EQ(old.record.bundle_path, "");
}

// All four or none; each held to its type.
TEST(ProvenanceReader, TheBundleFieldsComeTogether) {
  using E = sb::provenance_error;
  auto with = sample();
  with.bundle_sha256 = sb::sha256_of(std::string_view("listing")).digest;
  with.bundle_path = "/srv/b";
  const auto base = sb::to_json(with);
  const auto read = [](boost::json::object o) { return sb::parse_provenance(boost::json::serialize(o)); };
  for (const char* key : {"bundle_bytes", "bundle_files", "bundle_path"}) {
    auto o = base;
    o.erase(key);
    EXPECT_EQ(read(o).error, E::missing_field) << key;
    EXPECT_EQ(read(o).field, key);
  }
  auto o = base;
  o.erase("bundle_sha256");
  EXPECT_EQ(read(o).error, E::missing_field);
  EXPECT_EQ(read(o).field, "bundle_sha256");
  o = base;
  o["bundle_sha256"] = std::string(64, 'A');
  EXPECT_EQ(read(o).error, E::bad_value);
  o = base;
  o["bundle_bytes"] = -1;
  EXPECT_EQ(read(o).field, "bundle_bytes");
  o = base;
  o["bundle_path"] = "/srv/a\nb";
  EXPECT_EQ(read(o).error, E::bad_value);
}
