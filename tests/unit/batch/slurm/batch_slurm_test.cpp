// SPDX-License-Identifier: Apache-2.0
// What the Slurm backend asks the cluster for (batch_slurm.hpp): the array's ranges, resources
// that follow the largest run, and output directories a worker on another node could not see.
#include "batch/slurm/batch_slurm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

TEST(SlurmOptions, ArrayRangesAreCompressed) {
  EXPECT_EQ(array_ranges({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(array_ranges({3}), "3");
  EXPECT_EQ(array_ranges({}), "");
}

TEST(SlurmOptions, ResourcesFollowTheLargestRun) {
  sandbox::scoring_request first, second;
  first.limits.wall_seconds = 600;
  second.limits.memory_mib = 2048;
  second.limits.cpu_millicores = 1500;
  batch_plan plan;
  plan.add(1, "a", first);
  plan.add(2, "b", second);
  // One worker: both lines (645 s and 75 s: each with its 30 s start allowance), the longest twice
  // more, 120 s of preflight: 36 min.
  EXPECT_EQ(slurm_resources(plan, {0, 1}), (std::vector<std::string>{"--cpus-per-task=2", "--mem=2240M", "--time=36"}));
  EXPECT_EQ(slurm_resources(plan, {0}), (std::vector<std::string>{"--cpus-per-task=1", "--mem=704M", "--time=35"}));
  // Two runs at once: twice the CPUs and the runs' memory, the tool's once; half the time for the share.
  EXPECT_EQ(slurm_resources(plan, {0, 1}, 2, 1),
            (std::vector<std::string>{"--cpus-per-task=4", "--mem=4352M", "--time=30"}));
}

TEST(SlurmOptions, LocalOnlyOutputDirectoriesAreRefused) {
  for (const char* dir : {"/tmp/out", "/var/tmp/x", "/dev/shm/y", "/run/z", "/tmp"})
    EXPECT_THROW(check_shared_output_dir(dir), failure) << dir;
  EXPECT_NO_THROW(check_shared_output_dir("/srv/eval/round-1"));
}

}  // namespace
}  // namespace plb::batch
