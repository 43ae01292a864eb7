// SPDX-License-Identifier: Apache-2.0
// The batch's plan (plan_batch, batch_plan.cpp) from real manifests in a scratch directory: paths,
// defaults and bundles resolved against the manifest; refusals naming the line, column and field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "batch_fixture.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

TEST_F(BatchFiles, PlanResolvesDefaultsAndPathsAgainstTheManifest) {
  write("manifest.jsonl", line("a") + line("b", R"(, "data": "sub/d.csv", "features": ["x"], "seconds": 9)"));
  const batch_plan plan = plan_batch(config());
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan.item(0).request.model_path, dir_ + "/m.py");
  EXPECT_EQ(plan.item(0).request.data_path, dir_ + "/in.csv");
  EXPECT_EQ(plan.item(0).request.output_path, dir_ + "/a.csv");
  EXPECT_EQ(plan.item(0).request.limits.wall_seconds, sandbox::SandboxLimits{}.wall_seconds);
  EXPECT_EQ(plan.item(1).request.data_path, dir_ + "/sub/d.csv");
  EXPECT_EQ(plan.item(1).request.features, std::vector<std::string>{"x"});
  EXPECT_EQ(plan.item(1).request.limits.wall_seconds, 9u);
  EXPECT_EQ(plan.item(1).index, 1u);
  EXPECT_EQ(plan.manifest_sha256.size(), 64u);
}

TEST_F(BatchFiles, PlanNamesLineColumnAndField) {
  const auto c = config();
  EXPECT_NE(plan_error(line("a") + line("a"), c).find("line 2 (id): the ID was already used"), std::string::npos);
  EXPECT_NE(plan_error(line("a", R"(, "seconds": "30")"), c).find("line 1, column"), std::string::npos);
  EXPECT_NE(plan_error(line("a", R"(, "seconds": "30")"), c).find("(seconds): wrong type"), std::string::npos);
  auto no_task = c;
  no_task.defaults.task_type.clear();
  EXPECT_NE(plan_error(line("a"), no_task).find("line 1 (id a): task_type: not in the line and no --task-type"),
            std::string::npos);
  auto id_is_feature = c;
  id_is_feature.defaults.id_column = "a";
  EXPECT_NE(plan_error(line("a"), id_is_feature).find("line 1 (id a): id_column a: also given as a feature"),
            std::string::npos);
  EXPECT_NE(plan_error("", c).find("no lines"), std::string::npos);
}

// A line's bundle resolves against the manifest's directory, as its model does; a line without one
// has none (the plan makes its bundle column only once a line has one).
TEST_F(BatchFiles, PlanResolvesABundleAgainstTheManifest) {
  const std::string digest(64, 'd');
  write("manifest.jsonl",
        line("a") + line("b", R"(, "bundle": "models/b", "bundle_sha256": ")" + digest + "\"") + line("c"));
  const batch_plan plan = plan_batch(config());
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan.item(0).request.bundle_path, "");
  EXPECT_EQ(plan.item(0).request.bundle_sha256, "");
  EXPECT_EQ(plan.item(1).request.bundle_path, dir_ + "/models/b");
  EXPECT_EQ(plan.item(1).request.bundle_sha256, digest);
  EXPECT_EQ(plan.item(2).request.bundle_path, "");
  const auto c = config();
  EXPECT_NE(plan_error(line("a", R"(, "bundle": "b")"), c).find("(bundle_sha256): a required field is missing"),
            std::string::npos)
      << plan_error(line("a", R"(, "bundle": "b")"), c);
  EXPECT_NE(plan_error(line("a", R"(, "bundle": "b", "bundle_sha256": "xyz")"), c).find("(bundle_sha256): expected 64"),
            std::string::npos);
}

// Read a line at a time, the manifest is refused as the core's parser refuses it whole.
TEST_F(BatchScale, PlanRefusesAsTheWholeManifestParserDoes) {
  const auto refused = [&](const std::string& manifest) {
    write("manifest.jsonl", manifest);
    try {
      (void)plan_batch(config());
    } catch (const failure& f) {
      return std::string(f.what());
    }
    return std::string("accepted");
  };
  const std::string at = "--manifest " + dir_ + "/manifest.jsonl: ";
  EXPECT_EQ(refused(line("a") + "\n" + line("b")), at + "line 2: an empty line (only the last line may be empty)");
  EXPECT_EQ(refused(line("a") + " \t\r\n"), at + "line 2: an empty line (only the last line may be empty)");
  EXPECT_EQ(refused(""), at + "the manifest has no lines");
  EXPECT_EQ(refused(line("a") + line("b") + line("a") + line("b")),
            at + "line 3 (id): the ID was already used on an earlier line");
  // A broken line after a duplicate is what the whole-manifest parser names first.
  EXPECT_NE(refused(line("a") + line("a") + "{\n").find("line 3, column"), std::string::npos);
  EXPECT_EQ(refused(line("a") + line("b")), "accepted");
}

}  // namespace
}  // namespace plb::batch
