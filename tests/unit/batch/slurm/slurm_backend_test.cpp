// SPDX-License-Identifier: Apache-2.0
// How the Slurm backend's workers name themselves (slurm_backend.cpp): from Slurm's variables
// inside an array task, never an unsafe name, and as the local backend outside one; only Slurm's
// backend reads Slurm's variables.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "batch/backend.hpp"
#include "batch/batch_claims.hpp"

namespace plb::batch {
namespace {

// Slurm's variables as a task of array 7 sees them on node n2, for one test; restored after it.
class SlurmTask : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, value] : values_) {
      if (const char* old = std::getenv(name)) saved_.emplace_back(name, old);
      ASSERT_EQ(::setenv(name, value, 1), 0);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : values_) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }
  static const backend& named(std::string_view name) {
    const backend* b = find_backend(name);
    if (!b) throw std::runtime_error("no backend " + std::string(name));
    return *b;
  }

 private:
  const std::vector<std::pair<const char*, const char*>> values_{
      {"SLURM_ARRAY_JOB_ID", "7"}, {"SLURM_ARRAY_TASK_ID", "3"}, {"SLURMD_NODENAME", "n2"}};
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(SlurmTask, SlurmsWorkersNameThemselvesFromItsVariables) {
  const worker_report me = named("slurm").identity();
  EXPECT_EQ(me.worker, "7_3");
  EXPECT_EQ(me.node, "n2");
  EXPECT_EQ(me.state, "running");
  ASSERT_EQ(::setenv("SLURMD_NODENAME", "../n2", 1), 0);
  EXPECT_EQ(named("slurm").identity().node, "unknown") << "an unsafe name is never written";
}

TEST_F(SlurmTask, TheLocalBackendNamesItselfWhateverStartedIt) {
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const worker_report me = named("local").identity();
  EXPECT_EQ(me.worker, "local");
  EXPECT_EQ(me.node, is_safe_name(host) ? std::string(host) : "unknown") << "this host, not Slurm's node";
}

TEST_F(SlurmTask, OutsideATaskSlurmsWorkerIsNamedAsTheLocalOne) {
  for (const char* name : {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURMD_NODENAME"}) ::unsetenv(name);
  const worker_report slurm = named("slurm").identity(), local = named("local").identity();
  EXPECT_EQ(slurm.worker, local.worker);
  EXPECT_EQ(slurm.node, local.node);
}

}  // namespace
}  // namespace plb::batch
