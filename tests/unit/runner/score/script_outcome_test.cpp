// SPDX-License-Identifier: Apache-2.0
#include "runner/score/script_outcome.hpp"

#include <gtest/gtest.h>

#include "support/failure.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

// A request as check_request makes one; only the task, publish and the tail matter here.
score_request a_request(bool publish, std::size_t tail_bytes) {
  return score_request{"m.py",
                       {},
                       *sandbox::parse_image_id("sha256:" + std::string(64, 'a')).id,
                       "d.csv",
                       {"a"},
                       "",
                       sandbox::task_type::regression,
                       {},
                       "o.csv",
                       "o.csv.sandbox.json",
                       std::nullopt,
                       nullptr,
                       publish,
                       api_field_names(),
                       tail_bytes,
                       {}};
}

TEST(ScriptOutcome, APositionIsItsLineAndColumnFromOne) {
  EXPECT_EQ(position_of("abc", 0).line, 1u);
  EXPECT_EQ(position_of("abc", 0).column, 1u);
  EXPECT_EQ(position_of("abc", 2).column, 3u);
  const text_position p = position_of("{\n  \"predictions\": [1,\n x", 24);  // the x
  EXPECT_EQ(p.line, 3u);
  EXPECT_EQ(p.column, 2u);
  EXPECT_EQ(position_of("ab\n", 99).line, 2u);  // past the end: where the text ends
}

TEST(ScriptOutcome, RejectedStdoutSaysWhereAndWhatNeverTheBytes) {
  const score_request r = a_request(true, 0);
  const std::string printed = "MARKER-secret 0.5\n{\"predictions\": [1]}\n";
  try {
    (void)parse_stdout(printed, r, 1, 1 << 20);
    FAIL() << "accepted";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), verdict::output_rejected);
    const std::string message = f.what();
    EXPECT_NE(message.find("stdout rejected at byte 0 (line 1, column 1): "), std::string::npos) << message;
    EXPECT_EQ(message.find("MARKER"), std::string::npos) << message;
  }
  try {
    (void)parse_stdout("{\"predictions\": [1,\n 2, x]}", r, 3, 1 << 20);
    FAIL() << "accepted";
  } catch (const failure& f) {
    EXPECT_NE(std::string(f.what()).find("(line 2, column "), std::string::npos) << f.what();
  }
  EXPECT_EQ(parse_stdout("{\"predictions\": [1.5]}\n", r, 1, 1 << 20), std::vector<double>{1.5});
}

TEST(ScriptOutcome, TheFileIsKeptOnlyForTheVerdictsTheScriptReached) {
  for (const verdict v : {verdict::success, verdict::timeout, verdict::memory_exhausted, verdict::output_cap_exceeded,
                          verdict::script_failed, verdict::output_rejected})
    EXPECT_TRUE(script_reached(v)) << sandbox::name(v);
  for (const verdict v : {verdict::usage_error, verdict::host_refused, verdict::input_refused, verdict::cleanup_failed,
                          verdict::runtime_failed, verdict::internal_error})
    EXPECT_FALSE(script_reached(v)) << sandbox::name(v);
}

// The in-memory API's way: the text goes into the report for a failure and a success alike, and a
// verdict the script did not reach leaves nothing; nothing is published.
TEST(ScriptOutcome, TheTailGoesIntoTheReportForEachVerdictTheScriptReached) {
  score_request r = a_request(false, 8);
  docker_run_outcome out;
  out.stderr_tail.emplace(8);
  out.stderr_tail->append("why\x1b it failed", 14);
  run_report report;
  EXPECT_THROW(decide_keeping_diagnostics(r, out, "t0", report,
                                          []() -> std::vector<double> { fail(verdict::script_failed, "exit 1"); }),
               failure);
  ASSERT_TRUE(report.stderr_diagnostics);
  EXPECT_NE(report.stderr_diagnostics->find("verdict script_failed; 14 bytes"), std::string::npos);
  EXPECT_NE(report.stderr_diagnostics->find("\nt failed\n"), std::string::npos) << *report.stderr_diagnostics;
  run_report host;
  EXPECT_THROW(decide_keeping_diagnostics(r, out, "t0", host,
                                          []() -> std::vector<double> { fail(verdict::runtime_failed, "daemon"); }),
               failure);
  EXPECT_FALSE(host.stderr_diagnostics);
  run_report ok;
  EXPECT_EQ(decide_keeping_diagnostics(r, out, "t0", ok, [] { return std::vector<double>{2}; }),
            std::vector<double>{2});
  ASSERT_TRUE(ok.stderr_diagnostics);
  EXPECT_NE(ok.stderr_diagnostics->find("verdict success"), std::string::npos);
  r.stderr_tail_bytes = 0;  // not asked for: nothing, whatever the drain kept
  run_report off;
  (void)decide_keeping_diagnostics(r, out, "t0", off, [] { return std::vector<double>{2}; });
  EXPECT_FALSE(off.stderr_diagnostics);
}

}  // namespace
}  // namespace plb::runner
