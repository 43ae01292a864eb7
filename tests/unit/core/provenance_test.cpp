// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/provenance.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sb = plb::sandbox;

TEST(Provenance, RendersEveryFieldAsJson) {
  sb::provenance_record p;
  p.tool_version = "0.1.0";
  p.model_sha256 = sb::sha256_of(std::string_view("model")).digest;
  p.runtime_image = sb::parse_image_id("sha256:88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870").id;
  p.runtime_name = "runsc";
  p.runtime_version = "runsc version 0.0~20240729.0";
  p.runtime_release = "20240729";
  p.runtime_platform = "systrap";
  p.limits.wall_seconds = 12;
  p.task = sb::task_type::binary_classification;
  p.features = {"a", "b \"quoted\"\n"};
  p.rows = 3;
  p.input_sha256 = sb::sha256_of(std::string_view("csv")).digest;
  p.started_at = "2026-11-29T08:00:00Z";
  p.usage.wall_seconds = 1.25;
  p.usage.cpu_seconds = 0.123456;
  p.usage.memory_peak_bytes = 1234567;
  p.usage.output_bytes = 42;
  const std::string text = sb::render_json(p);
  ASSERT_EQ(text.back(), '\n');
  const auto v = boost::json::parse(text).as_object();
  EXPECT_EQ(v.at("model_sha256").as_string(), p.model_sha256.hex());
  EXPECT_EQ(v.at("runtime_image").as_string(), p.runtime_image->str());
  EXPECT_EQ(v.at("runtime").at("name").as_string(), "runsc");
  EXPECT_EQ(v.at("runtime").at("release").as_string(), "20240729");
  EXPECT_EQ(v.at("runtime").at("platform").as_string(), "systrap");
  EXPECT_EQ(v.at("limits").at("wall_seconds").to_number<std::uint64_t>(), 12u);
  // Only wall_seconds was changed: 64 guest processes + 256 host runtime tasks.
  EXPECT_EQ(v.at("limits").at("pids_limit").to_number<std::uint64_t>(), 320u);
  EXPECT_EQ(v.at("limits").as_object().size(), sb::limit_table.size() + 1);
  EXPECT_EQ(v.at("task_type").as_string(), "binary-classification");
  EXPECT_EQ(v.at("features").as_array().at(1).as_string(), "b \"quoted\"\n");
  EXPECT_TRUE(v.at("id_column").is_null());
  EXPECT_EQ(v.at("rows").to_number<std::uint64_t>(), 3u);
  EXPECT_EQ(v.at("input_sha256").as_string(), p.input_sha256.hex());
  EXPECT_EQ(v.at("verdict").as_string(), "success");
  EXPECT_DOUBLE_EQ(v.at("usage").at("wall_seconds").as_double(), 1.25);
  EXPECT_DOUBLE_EQ(v.at("usage").at("cpu_seconds").as_double(), 0.123);
  EXPECT_EQ(v.at("usage").at("memory_peak_bytes").to_number<std::uint64_t>(), 1234567u);
  EXPECT_EQ(v.at("usage").at("output_bytes").to_number<std::uint64_t>(), 42u);
  EXPECT_NE(v.at("privacy").as_string().find("local-only"), boost::json::string::npos);
}
