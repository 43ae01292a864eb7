// SPDX-License-Identifier: Apache-2.0
// The compact rows (batch_rows: batch_plan's and outcome_list's), plans read in a scratch directory,
// checked by what they hold: a row per line, each request rebuilt exactly, each distinct string once.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "batch_fixture.hpp"

namespace plb::batch {
namespace {

TEST_F(BatchScale, PlanKeepsOneCompactRowPerLine) {
  const batch_plan plan = big_plan();
  ASSERT_EQ(plan.size(), many);
  // Each line's own text (its ID, model path and digest) once, a row, and its place in the ID index;
  // everything the lines share once for the whole plan.
  std::size_t own_text = 0;
  for (std::size_t i = 0; i < many; ++i) {
    const batch_item item = plan.item(i);
    own_text += item.id.size() + item.request.model_path.size() + item.request.model_sha256.size();
  }
  EXPECT_LE(sizeof(batch_plan::row), 48u);
  EXPECT_LE(plan.memory_bytes(), own_text + many * (sizeof(batch_plan::row) + 4) + 16384)
      << "a line's shared values (image, data, features, ID column, limits, output directory) are held once";
  EXPECT_EQ(plan.data_files().size(), 1u);
}

TEST_F(BatchScale, PlanRebuildsEachLineExactlyAsItWasChecked) {
  write("manifest.jsonl", line("a") +
                              line("b", R"(, "data": "sub/d.csv", "features": ["x", "y"], "seconds": 9, )"
                                        R"("memory_mb": 300, "task_type": "binary-classification", "id_column": "k", )"
                                        R"("runtime_image": "sha256:)" +
                                            std::string(64, 'c') + "\"") +
                              line("c"));
  const batch_plan plan = plan_batch(config());
  ASSERT_EQ(plan.size(), 3u);
  const batch_item b = plan.item(1);
  EXPECT_EQ(b.index, 1u);
  EXPECT_EQ(b.line, 2u);
  EXPECT_EQ(b.id, "b");
  EXPECT_EQ(b.request.model_path, dir_ + "/m.py");
  EXPECT_EQ(b.request.model_sha256, hex64);
  EXPECT_EQ(b.request.runtime_image, "sha256:" + std::string(64, 'c'));
  EXPECT_EQ(b.request.data_path, dir_ + "/sub/d.csv");
  EXPECT_EQ(b.request.features, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.request.id_column, "k");
  EXPECT_EQ(b.request.task, sandbox::task_type::binary_classification);
  EXPECT_EQ(b.request.output_path, dir_ + "/b.csv");
  sandbox::SandboxLimits limits;
  limits.wall_seconds = 9;
  limits.memory_mib = 300;
  EXPECT_EQ(b.request.limits, limits);
  // The lines around it keep the defaults: nothing of b's leaks into a shared entry.
  for (const std::size_t i : {0u, 2u}) {
    const batch_item o = plan.item(i);
    EXPECT_EQ(o.request.runtime_image, image);
    EXPECT_EQ(o.request.data_path, dir_ + "/in.csv");
    EXPECT_EQ(o.request.features, std::vector<std::string>{"a"});
    EXPECT_EQ(o.request.limits, sandbox::SandboxLimits{});
    EXPECT_EQ(o.request.task, sandbox::task_type::regression);
    EXPECT_EQ(o.request.output_path, dir_ + "/" + o.id + ".csv");
  }
  EXPECT_EQ(plan.data_files().size(), 2u);
  EXPECT_EQ(plan.data_index(0), plan.data_index(2));
  EXPECT_EQ(plan.find("c"), std::optional<std::size_t>(2));
  EXPECT_EQ(plan.find("d"), std::nullopt);
}

TEST(OutcomeList, KeepsARowPerLineAndEachDistinctStringOnce) {
  outcome_list list(many);
  const line_outcome failed{"input_refused", 3, std::string(200, 'm'), std::nullopt, "", "node-1", "local"};
  for (std::size_t i = 0; i < many; ++i) list.set(i, failed);
  EXPECT_LE(sizeof(outcome_list::row), 80u);  // the usage's six figures, start-up included, are most of it
  EXPECT_LE(list.memory_bytes(), many * sizeof(outcome_list::row) + 4096) << "one message, however many lines";
  const line_outcome ok{"success", 0, "", sandbox::sandbox_usage{1.5, 0.25, 1024, 7, 3}, hex64, "n2", "7_1"};
  list.set(7, ok);
  const line_outcome back = list[7];
  EXPECT_EQ(back.state, "success");
  EXPECT_EQ(back.exit_code, 0);
  ASSERT_TRUE(back.usage);
  EXPECT_EQ(back.usage->wall_seconds, 1.5);
  EXPECT_EQ(back.usage->output_bytes, 7u);
  EXPECT_EQ(back.predictions_sha256, hex64);
  EXPECT_EQ(back.worker, "7_1");
  EXPECT_EQ(list[8].message, failed.message);
  EXPECT_FALSE(list[8].usage);
  list.set_state(8, "running");
  EXPECT_EQ(list.state(8), "running");
  EXPECT_EQ(list[8].message, failed.message);
}

}  // namespace
}  // namespace plb::batch
