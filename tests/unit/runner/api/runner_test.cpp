// SPDX-License-Identifier: Apache-2.0
// The runner API catches: whatever ends a run before it reaches the daemon comes back as a result
// with its verdict, the verdict's exit code and one line naming the caller's field, never as an
// exception. Every request here fails before a reaper, a CPU lease or a docker client is spent on
// it (the request check, the script's digest, the in-memory checks), so no container is started;
// the runs that reach gVisor are the gvisor label's (tests/integration/sandbox_score_test.cpp).
#include "plb/sandbox/runner.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../../temp_dir.hpp"
#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/exit_codes.hpp"
#include "runner/api/runner.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

class RunnerApi : public test::temp_dir_test {
 protected:
  RunnerApi() : temp_dir_test("plb-runner-api") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    std::ofstream(dir_ + "/model.py") << "print(1)\n";
    std::ofstream(dir_ + "/data.csv") << "a,b\n1,2\n";
  }
  sandbox::scoring_request good() const {
    sandbox::scoring_request r;
    r.model_path = dir_ + "/model.py";
    r.model_sha256 = sandbox::sha256_of(std::string("print(1)\n")).digest.hex();
    r.runtime_image = "sha256:" + std::string(64, 'b');
    r.data_path = dir_ + "/data.csv";
    r.features = {"a", "b"};
    r.output_path = dir_ + "/out.csv";
    return r;
  }
  // The result is the verdict's, in one line holding `words`, with nothing published.
  template <class Result>
  static void expect_result(const Result& r, verdict v, const std::string& words) {
    EXPECT_FALSE(r);
    EXPECT_EQ(r.outcome, v) << r.message;
    EXPECT_EQ(r.exit_code, sandbox::exit_code(v));
    EXPECT_NE(r.message.find(words), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find('\n'), std::string::npos) << "one line";
    EXPECT_FALSE(r.usage) << "nothing ran";
    EXPECT_EQ(r.stopped_by, 0);
    EXPECT_GE(r.total_seconds, 0);
  }
};

TEST_F(RunnerApi, ABadFieldIsAUsageErrorNamingTheApiField) {
  auto r = good();
  r.model_sha256 = "not a digest";
  const sandbox::scoring_result result = sandbox::score(r);
  expect_result(result, verdict::usage_error, "model_sha256");
  EXPECT_TRUE(result.predictions_path.empty());
  r = good();
  r.runtime_image = "python:3.11";
  expect_result(sandbox::score(r), verdict::usage_error, "runtime_image");
}

TEST_F(RunnerApi, AScriptThatIsNotTheReviewedOneIsRefusedBeforeAnythingRuns) {
  auto r = good();
  r.model_sha256 = std::string(64, 'a');
  expect_result(sandbox::score(r), verdict::input_refused, "model_sha256");
  EXPECT_FALSE(std::ifstream(r.output_path)) << "nothing published";
}

TEST_F(RunnerApi, AMessageIsOneLineWhateverThePathHolds) {
  auto r = good();
  r.model_path = dir_ + "/line\nbreak.py";  // no such file: refused, its name in the message
  expect_result(sandbox::score(r), verdict::input_refused, "model_path");
}

TEST_F(RunnerApi, TheCallersOwnNamesAreKeptForALineOfABatch) {
  auto r = good();
  r.data_path = dir_ + "/absent.csv";
  field_names names = api_field_names();
  names.data = "data";  // a manifest's key
  const run_hooks hooks{cancellation(nullptr), {}};
  expect_result(score_to_result(r, hooks, names), verdict::input_refused, "data " + r.data_path);
}

TEST_F(RunnerApi, TheInMemoryRequestIsCheckedAndCaughtTheSameWay) {
  const double values[] = {1, 2};
  sandbox::in_memory_request r;
  r.script_bytes = "print(1)\n";
  r.script_path = dir_ + "/model.py";  // both sources: exactly one may be given
  r.script_sha256 = sandbox::sha256_of(std::string("print(1)\n")).digest.hex();
  r.runtime_image = "sha256:" + std::string(64, 'b');
  r.features = values;
  r.rows = 1;
  r.columns = 2;
  const sandbox::in_memory_result both = sandbox::score_in_memory(r);
  expect_result(both, verdict::usage_error, "script");
  EXPECT_TRUE(both.predictions.empty());
  EXPECT_FALSE(both.provenance);
  r.script_path.clear();
  r.script_sha256 = std::string(64, 'a');
  expect_result(sandbox::score_in_memory(r), verdict::input_refused, "script");
}

}  // namespace
}  // namespace plb::runner
