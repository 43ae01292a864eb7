// SPDX-License-Identifier: Apache-2.0
// The backends' table (backends.cpp) as the rest of the tool asks it: the help of the flags each
// reads, and what it says when it submits. (How Slurm's workers name themselves: slurm/.)
#include "batch/backend.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace plb::batch {
namespace {

TEST(Backends, EachQueuedOneExplainsEveryFlagOnlyAQueueReadsAndTheOthersNone) {
  ASSERT_FALSE(backends().empty());
  EXPECT_EQ(backends().front()->name(), "local") << "the default";
  for (const backend* b : backends()) {
    const backend_help& h = b->help();
    EXPECT_FALSE(h.jobs.empty()) << b->name();
    for (const std::string_view text : {h.workers, h.no_wait, h.collect, h.partition, h.account, h.scheduler_option})
      EXPECT_EQ(text.empty(), !b->queued()) << b->name() << ": " << text;
    EXPECT_EQ(find_backend(b->name()), b);
  }
  EXPECT_EQ(find_backend("kubernetes"), nullptr);
}

TEST(Backends, EachSaysWhatItSubmittedInItsOwnWords) {
  EXPECT_EQ(find_backend("slurm")->submitted_text("42"), "submitted Slurm job 42");
  EXPECT_EQ(find_backend("local")->submitted_text("42"), "submitted job 42");
}

}  // namespace
}  // namespace plb::batch
