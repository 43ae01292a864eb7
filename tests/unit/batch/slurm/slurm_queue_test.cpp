// SPDX-License-Identifier: Apache-2.0
// Slurm's queue as squeue prints it (slurm_queue.hpp): workers the cluster never starts told
// apart from waiting ones, and the line such a job leaves.
#include "batch/slurm/slurm_queue.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "batch/slurm/slurm_workers.hpp"

namespace plb::batch {
namespace {

TEST(Queue, WorkersTheClusterNeverStartsAreToldApartFromWaitingOnes) {
  const queue_state never = parse_queue("7_0 PENDING PartitionConfig\n7_1 PENDING PartitionConfig\n");
  EXPECT_TRUE(never.queued);
  EXPECT_EQ(never.alive, (std::set<std::string>{"7_0", "7_1"}));
  EXPECT_EQ(never.never_runs, "PartitionConfig");
  EXPECT_EQ(parse_queue("7_0 RUNNING None\n7_1 PENDING PartitionConfig\n").never_runs, "")
      << "a worker runs: it takes the lines";
  EXPECT_EQ(parse_queue("7_0 PENDING Resources\n").never_runs, "") << "waiting for CPUs ends";
  EXPECT_EQ(parse_queue("7_0 PENDING ReqNodeNotAvail, UnavailableNodes:n1\n").never_runs, "")
      << "a node that is down may come back";
  EXPECT_EQ(parse_queue("7_0 PENDING PartitionConfig\n7_1 PENDING Priority\n").never_runs, "");
  const queue_state ended = parse_queue("7_0 COMPLETED None\n7_1 CANCELLED PartitionConfig\n");
  EXPECT_FALSE(ended.queued);
  EXPECT_EQ(ended.never_runs, "");
  EXPECT_EQ(parse_queue("7_0 RUNNING None\n7_1 COMPLETING None\n7_2 PENDING Resources\n").running, 2u);
  EXPECT_TRUE(never_schedulable("BadConstraints"));
  EXPECT_FALSE(never_schedulable("PartitionNodeLimit")) << "also given while the nodes are down";
  EXPECT_FALSE(never_schedulable("PartitionConfig2"));
  const line_outcome o = unscheduled_line("7", "PartitionConfig");
  EXPECT_EQ(o.state, "host_refused");
  EXPECT_NE(o.message.find("job 7 (pending: PartitionConfig)"), std::string::npos) << o.message;
}

}  // namespace
}  // namespace plb::batch
