// SPDX-License-Identifier: Apache-2.0
// What a batch does at its end (tools/plb-sandbox/batch_finish_flags.hpp): a report unless
// --no-report, and no verification unless --verify N, within its bounds; each --verify-* flag
// means nothing without --verify and is refused alone, naming what it needs.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "batch_finish_flags.hpp"

namespace plb::cli {
namespace {

// `plb-sandbox batch ARGS...` with only the end-of-batch flags, parsed as main.cpp parses it.
struct finish_line {
  CLI::App root{"plb-sandbox test"};
  batch_finish_flags flags;

  finish_line() { add_batch_finish_flags(*root.add_subcommand("batch", ""), flags); }

  void parse(std::vector<std::string> args) {
    args.insert(args.begin(), {"plb-sandbox", "batch"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    root.parse(static_cast<int>(argv.size()), argv.data());
  }
};

TEST(BatchFinishFlags, ByDefaultAReportAndNoVerification) {
  finish_line line;
  line.parse({});
  EXPECT_FALSE(line.flags.no_report);
  EXPECT_EQ(line.flags.verify, 0u);
  EXPECT_EQ(line.flags.verify_by, "wall_seconds");
  EXPECT_FALSE(line.flags.verify_sample);
  EXPECT_FALSE(line.flags.verify_seed);
  EXPECT_FALSE(line.flags.allow_changed_runtime);
}

TEST(BatchFinishFlags, EachFlagSetsItsField) {
  finish_line line;
  line.parse(
      {"--no-report", "--verify", "3", "--verify-by", "cpu_seconds", "--verify-seed", "7", "--allow-changed-runtime"});
  EXPECT_TRUE(line.flags.no_report);
  EXPECT_EQ(line.flags.verify, 3u);
  EXPECT_EQ(line.flags.verify_by, "cpu_seconds");
  EXPECT_EQ(line.flags.verify_seed, 7u);
  EXPECT_TRUE(line.flags.allow_changed_runtime);
  finish_line sample;
  sample.parse({"--verify", "100000", "--verify-sample"});
  EXPECT_TRUE(sample.flags.verify_sample);
  EXPECT_EQ(sample.flags.verify, 100000u);
}

TEST(BatchFinishFlags, VerifyIsBoundedByTheParser) {
  for (const std::string n : {"0", "100001", "-1", "many"}) {
    finish_line line;
    try {
      line.parse({"--verify=" + n});
      ADD_FAILURE() << "--verify " << n << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("--verify"), std::string::npos) << e.what();
    }
  }
}

TEST(BatchFinishFlags, VerifyByIsASummaryColumn) {
  finish_line line;
  EXPECT_THROW(line.parse({"--verify", "2", "--verify-by", "model_sha256"}), CLI::ValidationError);
}

TEST(BatchFinishFlags, EachVerifySettingNeedsVerify) {
  for (const std::vector<std::string>& alone : {std::vector<std::string>{"--verify-by", "line"},
                                                {"--verify-sample"},
                                                {"--verify-seed", "7"},
                                                {"--allow-changed-runtime"}}) {
    finish_line line;
    try {
      line.parse(alone);
      ADD_FAILURE() << alone[0] << " was accepted without --verify";
    } catch (const CLI::RequiresError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(alone[0]), std::string::npos) << what;
      EXPECT_NE(what.find("--verify"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace plb::cli
