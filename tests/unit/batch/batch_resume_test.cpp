// SPDX-License-Identifier: Apache-2.0
// Resume (batch_resume) on real files in a scratch directory: data hashed through no link, outputs
// kept only when a signed record vouches for them, recorded failures kept or run by the retry policy.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_resume.hpp"
#include "batch_fixture.hpp"
#include "plb/sandbox/digest.hpp"

namespace plb::batch {
namespace {

namespace fs = std::filesystem;

// Issue 41: resume hashes a line's data as the run reads it, through no symbolic link; a linked
// data path has no digest (the line then fails when it runs, naming the link).
TEST_F(BatchFiles, ResumeHashesTheDataThroughNoLink) {
  write("data.csv", "a,b\n1,2\n");
  ASSERT_EQ(::symlink((dir_ + "/data.csv").c_str(), (dir_ + "/linked.csv").c_str()), 0);
  data_digests digests;
  EXPECT_EQ(digests.of(dir_ + "/data.csv"), sandbox::sha256_of(std::string("a,b\n1,2\n")).digest.hex());
  EXPECT_EQ(digests.of(dir_ + "/linked.csv"), "");
  EXPECT_EQ(digests.of("/proc/self/environ"), "");
}

TEST_F(BatchFiles, ResumeKeepsOnlyOutputsItsSignedRecordVouchesFor) {
  write("manifest.jsonl", line("a"));
  const batch_plan plan = plan_batch(config());
  const batch_item item = plan.item(0);
  const output_dir dir = out();
  data_digests digests;
  const auto fingerprint = request_fingerprint(item, digests.of(item.request.data_path));
  EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::run);

  write("a.csv", "row,prediction\n0,1\n");
  EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::conflict)
      << "predictions without provenance";
  // A pair made for this request from public facts, without a record: not kept.
  plant_outputs("a");
  auto d = decide_resume(item, dir, retry_policy::all_failures, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("a.csv exists without a record of a run of this tool"), std::string::npos)
      << d.outcome.message;

  // The same pair with the record a run of this tool writes: kept.
  const auto facts = examine_outputs(dir, "a");
  ASSERT_TRUE(facts) << facts.error().what;
  line_outcome o{
      "success", 0, "predictions and provenance written", sandbox::sandbox_usage{}, facts->predictions_sha256, {}};
  write_record(dir, item, o, facts->fingerprint, facts->provenance_sha256);
  d = decide_resume(item, dir, retry_policy::all_failures, fingerprint);
  EXPECT_EQ(d.action, resume_action::keep) << d.outcome.message;
  EXPECT_EQ(d.outcome.predictions_sha256, facts->predictions_sha256);
  EXPECT_NE(d.outcome.message.find("kept from an earlier run"), std::string::npos);

  // Other predictions under the same record, with a provenance that describes them: not kept.
  plant_outputs("a", "row,prediction\n0,2\n");
  d = decide_resume(item, dir, retry_policy::none, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("a.csv is not the file its record vouches for"), std::string::npos)
      << d.outcome.message;
  write("a.csv", "row,prediction\n0,1\n");  // the recorded predictions, beside the new provenance
  d = decide_resume(item, dir, retry_policy::none, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("does not match the digest in its provenance"), std::string::npos)
      << d.outcome.message;

  // A signed record of another request: the limit is named.
  plant_outputs("a", "row,prediction\n0,1\n", 7);
  const auto other = examine_outputs(dir, "a");
  ASSERT_TRUE(other) << other.error().what;
  write_record(dir, item, {"success", 0, "m", std::nullopt, other->predictions_sha256, {}}, other->fingerprint,
               other->provenance_sha256);
  d = decide_resume(item, dir, retry_policy::none, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("limits.wall_seconds differs"), std::string::npos) << d.outcome.message;
  EXPECT_EQ(d.outcome.state, "not_run");

  // A success whose outputs were moved away runs again.
  fs::remove(dir_ + "/a.csv");
  fs::remove(dir_ + "/a.csv.sandbox.json");
  write_record(dir, item, o, facts->fingerprint, facts->provenance_sha256);
  EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::run);
}

TEST_F(BatchFiles, RecordedFailuresAreKeptUnlessTheRetryPolicyRunsThem) {
  write("manifest.jsonl", line("a"));
  const batch_item item = plan_batch(config()).item(0);
  const output_dir dir = out();
  const auto fingerprint = request_fingerprint(item, "");
  for (const auto& [verdict, host_retry] : std::vector<std::pair<std::string, bool>>{
           {"script_failed", false}, {"timeout", false}, {"runtime_failed", true}, {"host_refused", true}}) {
    line_outcome o;
    o.state = verdict;
    o.exit_code = 8;
    o.message = std::string("m");  // not operator=(const char*): GCC 12 -Wrestrict at -O3 (PR 105651)
    write_record(dir, item, o, fingerprint, "");
    EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::keep) << verdict;
    EXPECT_EQ(decide_resume(item, dir, retry_policy::host_failures, fingerprint).action,
              host_retry ? resume_action::run : resume_action::keep)
        << verdict;
    EXPECT_EQ(decide_resume(item, dir, retry_policy::all_failures, fingerprint).action, resume_action::run);
  }
  auto other = request_fingerprint(item, std::string(64, 'c'));
  EXPECT_EQ(decide_resume(item, dir, retry_policy::all_failures, other).action, resume_action::conflict);
  // Outputs beside a recorded failure are not the line's.
  plant_outputs("a");
  EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::conflict);
}

// Resume takes a changed bundle, its path or its digest, for a changed request: the line's earlier
// record is a conflict naming the key; the same bundle keeps it, and lines without one agree.
TEST_F(BatchFiles, ResumeTakesAChangedBundleForAChangedRequest) {
  const std::string digest(64, 'd');
  write("manifest.jsonl", line("a", R"(, "bundle": "models/a", "bundle_sha256": ")" + digest + "\""));
  const batch_item item = plan_batch(config()).item(0);
  const output_dir dir = out();
  const auto fingerprint = request_fingerprint(item, "");
  EXPECT_EQ(fingerprint.at("bundle_path").as_string(), dir_ + "/models/a");
  EXPECT_EQ(fingerprint.at("bundle_sha256").as_string(), digest);
  line_outcome o;
  o.state = "script_failed";
  o.exit_code = 8;
  o.message = std::string("m");
  write_record(dir, item, o, fingerprint, "");
  EXPECT_EQ(decide_resume(item, dir, retry_policy::none, fingerprint).action, resume_action::keep);
  batch_item other_digest = item;
  other_digest.request.bundle_sha256 = std::string(64, 'e');
  auto d = decide_resume(item, dir, retry_policy::none, request_fingerprint(other_digest, ""));
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("(bundle_sha256 differs)"), std::string::npos) << d.outcome.message;
  batch_item other_path = item;
  other_path.request.bundle_path = dir_ + "/models/b";
  d = decide_resume(item, dir, retry_policy::none, request_fingerprint(other_path, ""));
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("(bundle_path differs)"), std::string::npos) << d.outcome.message;
  batch_item none = item;
  none.request.bundle_path.clear();
  none.request.bundle_sha256.clear();
  d = decide_resume(item, dir, retry_policy::none, request_fingerprint(none, ""));
  EXPECT_EQ(d.action, resume_action::conflict) << "a bundle dropped from the line is a changed request too";
  EXPECT_TRUE(first_difference(request_fingerprint(none, ""), request_fingerprint(none, "")).empty());
}

TEST(RetryPolicy, OnlyWhatTheScriptDidNotCause) {
  EXPECT_FALSE(retried("success", retry_policy::all_failures));
  EXPECT_FALSE(retried("cleanup_failed", retry_policy::none));
  for (const char* v : {"host_refused", "runtime_failed", "cleanup_failed", "internal_error"})
    EXPECT_TRUE(retried(v, retry_policy::host_failures)) << v;
  for (const char* v : {"timeout", "memory_exhausted", "script_failed", "output_rejected", "input_refused"}) {
    EXPECT_FALSE(retried(v, retry_policy::host_failures)) << v;
    EXPECT_TRUE(retried(v, retry_policy::all_failures)) << v;
  }
}

}  // namespace
}  // namespace plb::batch
