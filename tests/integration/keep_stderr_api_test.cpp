// SPDX-License-Identifier: Apache-2.0
// The operator's diagnostics file through the runner API (plb/sandbox/runner.hpp), in real gVisor:
// score() writes <output>.stderr 0600 for a failure the script reached and beside the outputs of a
// success, only with keep_stderr; score_in_memory returns the same text and writes no file; the
// message never holds what the script wrote; a tail outside its bounds is a usage_error naming it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <vector>

#include "plb/sandbox/runner.hpp"
#include "sandbox_fixture.hpp"

namespace plb::test {
namespace {

namespace sb = sandbox;

constexpr const char* marker = "MARKER-api-7f3a";

// Writes the marker and an escape to stderr, then fails at import.
const std::string crash =
    std::string("import sys\nsys.stderr.write('") + marker + " \\x1b[31m\\n')\nraise RuntimeError('" + marker + "')\n";
// Floods stderr past the tail, then answers correctly.
const std::string flood_then_answer = std::string("import json, sys\nrows = json.load(sys.stdin)['features']\n") +
                                      "sys.stderr.write('" + marker + " early\\n' + 'x' * 300000 + '\\nEND-" + marker +
                                      "\\n')\nprint(json.dumps({'predictions': [r[0] for r in rows]}))\n";

class KeepStderrApi : public SandboxTest {
 protected:
  sb::scoring_request request(const std::string& body, const std::string& output, bool keep) {
    const std::string script = write("model.py", body);
    sb::scoring_request r;
    r.model_path = script;
    r.model_sha256 = sha256_file(script);
    r.runtime_image = image_;
    r.data_path = write("data.csv", "id,a,b\nr1,1,2\nr2,3,4\n");
    r.features = {"a", "b"};
    r.output_path = path(output);
    r.keep_stderr = keep;
    return r;
  }

  sb::in_memory_request in_memory(const std::string& body) {
    sb::in_memory_request r;
    r.script_bytes = body;
    r.script_sha256 = sb::sha256_of(std::string_view(body)).digest.hex();
    r.runtime_image = image_;
    r.features = matrix_.data();
    r.rows = 2;
    r.columns = 2;
    r.keep_stderr = true;
    return r;
  }

  static bool printable(const std::string& text) {
    for (const char c : text)
      if (c != '\n' && (c < 0x20 || c > 0x7e)) return false;
    return true;
  }

  std::vector<double> matrix_{1, 2, 3, 4};
};

TEST_F(KeepStderrApi, AFailureLeavesTheEscapedTailAndTheMessageHoldsNoneOfIt) {
  const auto r = sb::score(request(crash, "out/crash.csv", true));
  ASSERT_EQ(r.outcome, sb::verdict::script_failed) << r.message;
  EXPECT_EQ(r.stderr_path, path("out/crash.csv.stderr"));
  EXPECT_EQ(r.message.find(marker), std::string::npos) << r.message;
  const std::string text = slurp(r.stderr_path);
  EXPECT_NE(text.find(std::string(marker) + " \\x1b[31m"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict script_failed"), std::string::npos) << text;
  EXPECT_TRUE(printable(text));
  struct stat st {};
  ASSERT_EQ(::stat(r.stderr_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_FALSE(exists(path("out/crash.csv")));
  EXPECT_FALSE(exists(path("out/crash.csv.sandbox.json")));
}

TEST_F(KeepStderrApi, ASuccessPublishesItWithTheOutputsAndItsProvenanceSaysNothingOfIt) {
  const auto r = sb::score(request(flood_then_answer, "ok.csv", true));
  ASSERT_TRUE(r) << r.message;
  ASSERT_EQ(r.stderr_path, path("ok.csv.stderr"));
  const std::string text = slurp(r.stderr_path);
  EXPECT_NE(text.find("END-" + std::string(marker)), std::string::npos);
  EXPECT_EQ(text.find(std::string(marker) + " early"), std::string::npos) << "the head of a flood is past the tail";
  EXPECT_NE(text.find("the last 65536 shown"), std::string::npos) << text.substr(0, 400);
  EXPECT_EQ(slurp(path("ok.csv.sandbox.json")).find(marker), std::string::npos);
  EXPECT_EQ(slurp(path("ok.csv")), "row,prediction\n0,1\n1,3\n");
}

TEST_F(KeepStderrApi, WithoutTheFlagNoFileIsWritten) {
  const auto failed = sb::score(request(crash, "crash.csv", false));
  ASSERT_EQ(failed.outcome, sb::verdict::script_failed) << failed.message;
  const auto ok = sb::score(request(flood_then_answer, "ok.csv", false));
  ASSERT_TRUE(ok) << ok.message;
  EXPECT_TRUE(failed.stderr_path.empty());
  EXPECT_TRUE(ok.stderr_path.empty());
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().starts_with("ok.") || e.path().filename().string().starts_with("crash."))
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ok.csv", "ok.csv.sandbox.json"}));
}

TEST_F(KeepStderrApi, InMemoryReturnsTheTailForAFailureAndASuccessAndWritesNothing) {
  const auto before = std::distance(std::filesystem::directory_iterator(dir_), {});
  const auto failed = sb::score_in_memory(in_memory(crash));
  ASSERT_EQ(failed.outcome, sb::verdict::script_failed) << failed.message;
  ASSERT_TRUE(failed.stderr_diagnostics);
  EXPECT_NE(failed.stderr_diagnostics->find(std::string(marker) + " \\x1b[31m"), std::string::npos);
  EXPECT_EQ(failed.message.find(marker), std::string::npos);
  const auto ok = sb::score_in_memory(in_memory(flood_then_answer));
  ASSERT_TRUE(ok) << ok.message;
  ASSERT_TRUE(ok.stderr_diagnostics);
  EXPECT_NE(ok.stderr_diagnostics->find("END-" + std::string(marker)), std::string::npos);
  EXPECT_EQ(ok.predictions, (std::vector<double>{1, 3}));
  auto off = in_memory(crash);
  off.keep_stderr = false;
  EXPECT_FALSE(sb::score_in_memory(off).stderr_diagnostics);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), before);
}

TEST_F(KeepStderrApi, ATailOutsideItsBoundsIsRefusedBeforeAnythingRuns) {
  auto r = request(crash, "bounds.csv", true);
  r.stderr_tail_kib = sb::stderr_tail_bounds::max_kib + 1;
  const auto refused = sb::score(r);
  EXPECT_EQ(refused.outcome, sb::verdict::usage_error);
  EXPECT_NE(refused.message.find("stderr_tail_kib = 1025 KiB: outside its bounds (1 to 1024)"), std::string::npos)
      << refused.message;
  EXPECT_FALSE(refused.usage);
  auto m = in_memory(crash);
  m.stderr_tail_kib = 0;
  EXPECT_EQ(sb::score_in_memory(m).outcome, sb::verdict::usage_error);
}

}  // namespace
}  // namespace plb::test
