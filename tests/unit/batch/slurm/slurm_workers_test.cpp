// SPDX-License-Identifier: Apache-2.0
// Slurm's workers without a cluster (slurm_workers.hpp): how many an array gets, a dead worker's
// line handed back only after its sandbox's deadline, and what a line no worker ran becomes,
// decided by the last array's workers alone.
#include "batch/slurm/slurm_workers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../batch_fixture.hpp"
#include "batch/batch_claims.hpp"

namespace plb::batch {
namespace {

class ClaimDir : public BatchDir {};

TEST_F(ClaimDir, DeadWorkersLinesAreHandedBackOnlyAfterTheirDeadline) {
  write("manifest.jsonl", line("a", R"(, "seconds": 5)") + line("b"));
  const batch_plan plan = plan_batch(config());
  const output_dir dir = out();
  const claim_dir claims(dir);
  ASSERT_TRUE(claims.try_claim("a", {"7_0", "n1", 1000}));
  ASSERT_TRUE(claims.try_claim("b", {"7_1", "n2", 1000}));
  // The claim, the way to the container's creation, its 30 s start allowance, 5 s of wall time, the grace.
  const std::int64_t deadline = 1000 + 30 + 5 + 10 + claim_start_allowance_seconds;
  EXPECT_EQ(hand_back_lost_claims(claims, plan, {}, deadline - 1), 0u) << "its sandbox may still run";
  EXPECT_EQ(hand_back_lost_claims(claims, plan, {"7_0", "7_1"}, deadline + 1000), 0u) << "workers alive";
  EXPECT_EQ(hand_back_lost_claims(claims, plan, {"7_1"}, deadline), 1u);
  EXPECT_FALSE(claims.exists("a"));
  EXPECT_TRUE(claims.exists("b"));
  EXPECT_TRUE(claims.try_claim("a", {"7_1", "n2", deadline})) << "another worker takes it";
}

TEST(Workers, CountFollowsLinesJobsClusterAndMaxArraySize) {
  EXPECT_EQ(worker_count(0, 40, 1, 1, 1001, 2), 2u) << "no more than the cluster runs at once";
  EXPECT_EQ(worker_count(0, 40, 2, 2, 1001, 2), 1u);
  EXPECT_EQ(worker_count(0, 3, 1, 1, 1001, 100), 3u) << "no more than the lines";
  EXPECT_EQ(worker_count(0, 100000, 1, 1, 4, 0), 4u) << "within MaxArraySize";
  EXPECT_EQ(worker_count(9, 100, 1, 1, 4, 2), 4u) << "--workers, still within MaxArraySize";
  EXPECT_EQ(worker_count(0, 0, 1, 1, 0, 0), 1u);
  EXPECT_EQ(parse_max_array_size("MaxArrayRecs = 3\nMaxArraySize            = 1001\n"), 1001u);
  EXPECT_EQ(parse_max_array_size("MaxArraySize = x\n"), 0u);
  EXPECT_EQ(parse_sinfo_cpus("0/1/0/1\n1/0/0/1\n"), 2u);
}

TEST(Workers, LinesNoWorkerRanNameTheRefusingNodes) {
  const std::vector<worker_report> refused{{"4_0", "n1", "refused", "DOCKER_HOST is set"},
                                           {"4_1", "n2", "refused", "no runsc"}};
  const line_outcome o = unrun_line("4", refused, std::nullopt);
  EXPECT_EQ(o.state, "host_refused");
  EXPECT_EQ(o.message,
            "no worker could run this line: node n1 (worker 4_0): DOCKER_HOST is set; node n2 (worker 4_1): no runsc");
  const std::vector<worker_report> mixed{refused[0], {"4_1", "n2", "done", "ok"}};
  EXPECT_EQ(unrun_line("4", mixed, std::nullopt).state, "not_run");
  EXPECT_EQ(unrun_line("4", {}, std::nullopt).state, "not_run");
  const line_outcome held = unrun_line("4", mixed, claim_info{"4_1", "n2", 1});
  EXPECT_NE(held.message.find("worker 4_1 on node n2 held it"), std::string::npos) << held.message;
}

TEST(Workers, OnlyTheLastArraysWorkersDecideARefusal) {
  const std::vector<worker_report> all{{"4_0", "n1", "running", ""},
                                       {"41_0", "n1", "refused", "no runsc"},
                                       {"5_0", "n2", "refused", "no runsc"},
                                       {"5_1", "n1", "refused", "DOCKER_HOST is set"},
                                       {"5", "n1", "done", "not a worker name"}};
  const auto of5 = workers_of_job(all, "5");
  ASSERT_EQ(of5.size(), 2u);
  EXPECT_EQ(of5[0].worker, "5_0");
  EXPECT_EQ(of5[1].worker, "5_1");
  EXPECT_TRUE(every_worker_refused(of5));
  EXPECT_FALSE(every_worker_refused(workers_of_job(all, "4"))) << "array 4's worker died running, it did not refuse";
  EXPECT_EQ(workers_of_job(all, "41").size(), 1u) << "41_0 is not a worker of 4";
  EXPECT_FALSE(every_worker_refused({})) << "an array no worker of which started did not refuse";
}

}  // namespace
}  // namespace plb::batch
