// The batch's logic without a daemon: the plan's messages, resume decisions on real files in a
// scratch directory, fingerprints, the summary, and Slurm's array and resource options.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "batch_engine.hpp"
#include "batch_records.hpp"
#include "batch_resume.hpp"
#include "batch_slurm.hpp"
#include "failure.hpp"
#include "plb/sandbox/provenance.hpp"

namespace plb::tool {
namespace {

namespace fs = std::filesystem;
const std::string hex64 = "2d5ac43c328cd40926415024070b0f97d27503c27f62d8a6f5c1c5ecd3bb9fad";
const std::string image = "sha256:" + std::string(64, 'b');

class BatchFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "plb-batch-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    write("in.csv", "a,b\n1,2\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ + "/" + name) << text; }
  std::string line(const std::string& id, const std::string& extra = "") const {
    return R"({"id": ")" + id + R"(", "model": "m.py", "model_sha256": ")" + hex64 + "\"" + extra + "}\n";
  }
  batch_config config() const {
    batch_config c;
    c.manifest_path = dir_ + "/manifest.jsonl";
    c.output_dir = dir_;
    c.defaults.runtime_image = image;
    c.defaults.data = dir_ + "/in.csv";
    c.defaults.features = {"a"};
    c.defaults.task_type = "regression";
    return c;
  }
  std::string plan_error(const std::string& manifest, const batch_config& c) {
    write("manifest.jsonl", manifest);
    try {
      plan_batch(c);
    } catch (const failure& f) {
      EXPECT_EQ(f.verdict(), sandbox::verdict::input_refused);
      return f.what();
    }
    return "accepted";
  }
  std::string dir_;
};

TEST_F(BatchFiles, PlanResolvesDefaultsAndPathsAgainstTheManifest) {
  write("manifest.jsonl", line("a") + line("b", R"(, "data": "sub/d.csv", "features": ["x"], "seconds": 9)"));
  const batch_plan plan = plan_batch(config());
  ASSERT_EQ(plan.items.size(), 2u);
  EXPECT_EQ(plan.items[0].request.model_path, dir_ + "/m.py");
  EXPECT_EQ(plan.items[0].request.data_path, dir_ + "/in.csv");
  EXPECT_EQ(plan.items[0].request.output_path, dir_ + "/a.csv");
  EXPECT_EQ(plan.items[0].request.limits.wall_seconds, sandbox::SandboxLimits{}.wall_seconds);
  EXPECT_EQ(plan.items[1].request.data_path, dir_ + "/sub/d.csv");
  EXPECT_EQ(plan.items[1].request.features, std::vector<std::string>{"x"});
  EXPECT_EQ(plan.items[1].request.limits.wall_seconds, 9u);
  EXPECT_EQ(plan.items[1].index, 1u);
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

TEST_F(BatchFiles, ResumeKeepsMatchingOutputsAndRefusesOthers) {
  write("manifest.jsonl", line("a"));
  const batch_plan plan = plan_batch(config());
  const batch_item& item = plan.items[0];
  data_digests digests;
  const auto fingerprint = request_fingerprint(item, digests.of(item.request.data_path));
  EXPECT_EQ(decide_resume(item, dir_, retry_policy::none, fingerprint).action, resume_action::run);

  // A provenance made for this request, with the predictions it describes.
  sandbox::provenance_record rec;
  rec.model_sha256 = sandbox::parse_sha256_hex(hex64).digest;
  rec.runtime_image = sandbox::parse_image_id(image).id;
  rec.features = {"a"};
  rec.input_sha256 = sandbox::parse_sha256_hex(digests.of(item.request.data_path)).digest;
  rec.predictions_sha256 = sandbox::sha256_of("row,prediction\n0,1\n").digest;
  write("a.csv", "row,prediction\n0,1\n");
  EXPECT_EQ(decide_resume(item, dir_, retry_policy::none, fingerprint).action, resume_action::conflict)
      << "predictions without provenance";
  write("a.csv.sandbox.json", sandbox::render_json(rec));
  auto d = decide_resume(item, dir_, retry_policy::all_failures, fingerprint);
  EXPECT_EQ(d.action, resume_action::keep);
  EXPECT_EQ(d.outcome.predictions_sha256, rec.predictions_sha256.hex());

  write("a.csv", "row,prediction\n0,2\n");
  d = decide_resume(item, dir_, retry_policy::none, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("does not match the digest"), std::string::npos);

  rec.limits.wall_seconds = 7;
  write("a.csv", "row,prediction\n0,1\n");
  write("a.csv.sandbox.json", sandbox::render_json(rec));
  d = decide_resume(item, dir_, retry_policy::none, fingerprint);
  EXPECT_EQ(d.action, resume_action::conflict);
  EXPECT_NE(d.outcome.message.find("limits.wall_seconds differs"), std::string::npos) << d.outcome.message;
  EXPECT_EQ(d.outcome.state, "not_run");
}

TEST_F(BatchFiles, RecordedFailuresAreKeptUnlessTheRetryPolicyRunsThem) {
  write("manifest.jsonl", line("a"));
  const batch_item item = plan_batch(config()).items[0];
  const auto fingerprint = request_fingerprint(item, "");
  for (const auto& [verdict, host_retry] : std::vector<std::pair<std::string, bool>>{
           {"script_failed", false}, {"timeout", false}, {"runtime_failed", true}, {"host_refused", true}}) {
    line_outcome o;
    o.state = verdict;
    o.exit_code = 8;
    o.message = "m";
    write_record(dir_, item, o, fingerprint);
    EXPECT_EQ(decide_resume(item, dir_, retry_policy::none, fingerprint).action, resume_action::keep) << verdict;
    EXPECT_EQ(decide_resume(item, dir_, retry_policy::host_failures, fingerprint).action,
              host_retry ? resume_action::run : resume_action::keep)
        << verdict;
    EXPECT_EQ(decide_resume(item, dir_, retry_policy::all_failures, fingerprint).action, resume_action::run);
  }
  auto other = request_fingerprint(item, std::string(64, 'c'));
  EXPECT_EQ(decide_resume(item, dir_, retry_policy::all_failures, other).action, resume_action::conflict);
  write("a.result.json", "{}");
  EXPECT_THROW(decide_resume(item, dir_, retry_policy::none, fingerprint), failure);
}

TEST_F(BatchFiles, OutputDirectoryIsCreatedPrivateAndLockedForOneBatch) {
  const std::string out = dir_ + "/out";
  const unique_fd lock = open_output_dir(out, true);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_THROW(open_output_dir(out, true), failure) << "a second batch on the same directory";
  EXPECT_NO_THROW(open_output_dir(out, false)) << "Slurm tasks write their own lines without the lock";
  fs::create_symlink(out, dir_ + "/link");
  EXPECT_THROW(open_output_dir(dir_ + "/link", false), failure);
}

TEST_F(BatchFiles, SummaryQuotesMessagesAndCountsStates) {
  write("manifest.jsonl", line("a") + line("b"));
  const batch_plan plan = plan_batch(config());
  std::vector<line_outcome> outcomes(2);
  outcomes[0] = {"success", 0, "ok", sandbox::sandbox_usage{1.5, 0.25, 1024, 0, 0}, hex64};
  outcomes[1] = {"not_run", -1, "a, \"quoted\" reason", std::nullopt, ""};
  EXPECT_EQ(render_summary_csv(plan.items, outcomes),
            "id,line,verdict,exit_code,message,wall_seconds,cpu_seconds,memory_peak_bytes,predictions_sha256\n"
            "a,1,success,0,ok,1.500,0.250,1024," +
                hex64 + "\nb,2,not_run,,\"a, \"\"quoted\"\" reason\",,,,\n");
  const auto json = render_summary_json({"m", "s", dir_, "local"}, plan.items, outcomes);
  EXPECT_NE(json.find(R"("complete":false)"), std::string::npos);
  EXPECT_NE(json.find(R"("counts":{"not_run":1,"success":1})"), std::string::npos);
}

TEST(SlurmOptions, ArrayRangesAreCompressed) {
  EXPECT_EQ(array_ranges({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(array_ranges({3}), "3");
  EXPECT_EQ(array_ranges({}), "");
}

TEST(SlurmOptions, ResourcesFollowTheLargestRun) {
  batch_plan plan;
  plan.items.resize(2);
  plan.items[1].request.limits.memory_mib = 2048;
  plan.items[1].request.limits.cpu_millicores = 1500;
  plan.items[0].request.limits.wall_seconds = 600;
  EXPECT_EQ(slurm_resources(plan, {0, 1}), (std::vector<std::string>{"--cpus-per-task=2", "--mem=2240M", "--time=13"}));
  EXPECT_EQ(slurm_resources(plan, {0}), (std::vector<std::string>{"--cpus-per-task=1", "--mem=704M", "--time=13"}));
}

TEST(SlurmOptions, LocalOnlyOutputDirectoriesAreRefused) {
  for (const char* dir : {"/tmp/out", "/var/tmp/x", "/dev/shm/y", "/run/z", "/tmp"})
    EXPECT_THROW(check_shared_output_dir(dir), failure) << dir;
  EXPECT_NO_THROW(check_shared_output_dir("/srv/eval/round-1"));
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
}  // namespace plb::tool
