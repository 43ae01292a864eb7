// SPDX-License-Identifier: Apache-2.0
// Workers' claims without a cluster: the claim and report formats, exclusive link-based claims
// between racing threads, where the shared files live (and where an earlier release left them),
// the line list. (Slurm's workers, their hand-back and its queue: slurm/.)
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "batch/batch_claims.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_worker.hpp"
#include "batch/slurm/slurm_workers.hpp"  // an earlier release's lines handed back
#include "batch_fixture.hpp"

namespace plb::batch {
namespace {

TEST(Claims, RenderAndParseExactly) {
  const claim_info c{"12_3", "n1", 1700000000};
  EXPECT_EQ(render_claim(c), "worker=12_3 node=n1 claimed_at=1700000000\n");
  const auto back = parse_claim(render_claim(c));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->worker, "12_3");
  EXPECT_EQ(back->node, "n1");
  EXPECT_EQ(back->claimed_at, 1700000000);
  for (const char* bad : {"", "worker=12_3 node=n1 claimed_at=1\nextra", "worker=12_3 node=n1 claimed_at=-1\n",
                          "worker=../x node=n1 claimed_at=1\n", "worker=1 node= claimed_at=1\n",
                          "node=n1 worker=1 claimed_at=1\n", "worker=1 node=n1 claimed_at=1x\n"})
    EXPECT_FALSE(parse_claim(bad)) << bad;
}

TEST(Claims, SafeNames) {
  EXPECT_TRUE(is_safe_name("n1"));
  EXPECT_TRUE(is_safe_name("123_4"));
  EXPECT_FALSE(is_safe_name(""));
  EXPECT_FALSE(is_safe_name("-n"));
  EXPECT_FALSE(is_safe_name("a/b"));
  EXPECT_FALSE(is_safe_name(std::string(65, 'a')));
}

TEST(Claims, WorkerReportsRoundTripAndRefuseOtherStates) {
  const worker_report w{"9_1", "n2", "refused", "DOCKER_HOST is set"};
  const auto back = parse_worker_report(render_worker_report(w), "9_1");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->state, "refused");
  EXPECT_EQ(back->message, "DOCKER_HOST is set");
  EXPECT_FALSE(parse_worker_report("node=n2\nstate=winning\nmessage=x\n", "9_1"));
  EXPECT_FALSE(parse_worker_report(render_worker_report(w), "../9"));
}

class ClaimDir : public BatchDir {};

TEST_F(ClaimDir, OneWorkerWinsEachLineAmongRacingThreads) {
  const output_dir dir = out();
  const claim_dir claims(dir);
  std::atomic<int> wins{0};
  std::vector<std::thread> racers;
  for (int t = 0; t < 8; ++t)
    racers.emplace_back([&, t] {
      for (int line = 0; line < 50; ++line) {
        std::string id(1, 'l');  // appended, not "l" + ...: GCC 12's -Wrestrict false positive (PR 105651)
        id.append(std::to_string(line));
        if (claims.try_claim(id, {std::to_string(t) + "_0", "n1", 1})) ++wins;
      }
    });
  for (auto& r : racers) r.join();
  EXPECT_EQ(wins.load(), 50) << "every line claimed exactly once";
  EXPECT_EQ(claims.held().size(), 50u) << "no temporary left behind";
  claims.release("l0");
  EXPECT_FALSE(claims.exists("l0"));
  EXPECT_TRUE(claims.try_claim("l0", {"1_0", "n1", 1}));
}

TEST_F(ClaimDir, ReportsAreReadBackSorted) {
  const output_dir dir = out();
  const claim_dir claims(dir);
  claims.report({"5_1", "n2", "refused", "no"});
  claims.report({"5_0", "n1", "done", "ok"});
  const auto r = claims.reports();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].worker, "5_0");
  EXPECT_EQ(r[1].node, "n2");
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

TEST_F(ClaimDir, ANewBatchSharesItsFilesInQueueWhateverItsBackend) {
  const output_dir dir = out();
  const claim_dir claims(dir);
  claims.put("lines", render_line_list({0}));
  ASSERT_TRUE(claims.try_claim("a", {"7_0", "n1", 1}));
  claims.report({"7_0", "n1", "running", ""});
  EXPECT_EQ(claims.path(), dir_ + "/queue");
  for (const char* name : {"/queue/lines", "/queue/claims/a", "/queue/workers/7_0"}) EXPECT_TRUE(exists(dir_ + name));
  EXPECT_TRUE(is_directory(dir_ + "/queue/lost"));
  EXPECT_FALSE(exists(dir_ + "/slurm")) << "no backend's name in the shared layout";
}

// As an earlier release left a batch directory whose workers may still be running: the shared
// files under slurm/, beside Slurm's own.
TEST_F(ClaimDir, AnEarlierReleasesBatchIsResumedWhereItsWorkersWrite) {
  write("manifest.jsonl", line("a", R"(, "seconds": 5)") + line("b"));
  for (const char* d : {"slurm", "slurm/claims", "slurm/lost", "slurm/workers"})
    ASSERT_EQ(::mkdir((dir_ + "/" + d).c_str(), 0700), 0) << d;
  write("slurm/job-id", "7\n");
  write("slurm/lines", "0\n1\n");
  write("slurm/claims/a", render_claim({"7_0", "n1", 1000}));
  write("slurm/workers/7_0", render_worker_report({"7_0", "n1", "running", ""}));
  const batch_plan plan = plan_batch(config());
  const output_dir dir = out();
  const claim_dir claims(dir);
  EXPECT_EQ(claims.path(), dir_ + "/slurm");
  const auto lines = claims.get("lines", 64);
  ASSERT_TRUE(lines) << lines.error().what;
  EXPECT_EQ(parse_line_list(*lines, plan.size()), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(claims.held(), std::vector<std::string>{"a"});
  ASSERT_TRUE(claims.read("a"));
  EXPECT_EQ(claims.read("a")->worker, "7_0");
  const auto reports = claims.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].worker, "7_0");
  EXPECT_FALSE(claims.try_claim("a", {"8_0", "n2", 2000})) << "the earlier worker still holds it";
  EXPECT_EQ(hand_back_lost_claims(claims, plan, {}, 1000000), 1u) << "its worker is gone, its deadline past";
  EXPECT_FALSE(exists(dir_ + "/slurm/claims/a"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_ + "/slurm/lost"), {}), 1);
  EXPECT_TRUE(claims.try_claim("b", {"8_0", "n2", 2000}));
  EXPECT_TRUE(exists(dir_ + "/slurm/claims/b"));
  EXPECT_FALSE(exists(dir_ + "/queue")) << "one batch's workers share one place";
}

TEST(LineList, RoundTripsAndRefusesBadLists) {
  EXPECT_EQ(render_line_list({0, 2, 5}), "0\n2\n5\n");
  EXPECT_EQ(parse_line_list("0\n2\n5\n", 6), (std::vector<std::size_t>{0, 2, 5}));
  for (const char* bad : {"0\n0\n", "6\n", "1", "\n", "-1\n", "1x\n"}) EXPECT_FALSE(parse_line_list(bad, 6)) << bad;
}

TEST_F(ClaimDir, RecordsCarryNodeAndWorker) {
  write("manifest.jsonl", line("a"));
  const batch_plan plan = plan_batch(config());
  const host_key k = key();
  line_outcome o{"script_failed", 8, "m", std::nullopt, "", "n2", "3_1"};
  const std::string text = render_record(plan.item(0), o, request_fingerprint(plan.item(0), ""), "", k);
  const auto r = parse_record(text, "a", k);
  ASSERT_TRUE(r) << r.error().what;
  EXPECT_EQ(r->outcome.node, "n2");
  EXPECT_EQ(r->outcome.worker, "3_1");
}

}  // namespace
}  // namespace plb::batch
