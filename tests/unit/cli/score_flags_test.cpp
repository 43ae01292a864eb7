// SPDX-License-Identifier: Apache-2.0
// The sandbox-score flags (tools/plb-sandbox/score_flags.hpp), parsed by CLI11 as main.cpp parses
// them, under a subcommand of a root command line: a limit flag not given is the limits' default
// (and its help says so), a value outside the limits' bounds is refused naming the flag, and every
// check of the request speaks in flags, never in the runner's field names.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "../temp_dir.hpp"
#include "command_line.hpp"
#include "score_flags.hpp"
#include "support/failure.hpp"

namespace plb::cli {
namespace {

using sandbox::limit_field;

// Every required flag, valid, writing `output`, then `extra`.
std::vector<std::string> required_and(const std::string& output, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--model",         "model.py",
                                "--model-sha256",  std::string(64, 'a'),
                                "--runtime-image", "sha256:" + std::string(64, 'b'),
                                "--data",          "data.csv",
                                "--feature",       "x",
                                "--task-type",     "regression",
                                "--output",        output};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// `args` with the value of `flag` replaced by `value` (a flag given twice is refused: see below).
std::vector<std::string> replacing(std::vector<std::string> args, const std::string& flag, const std::string& value) {
  const auto at = std::find(args.begin(), args.end(), flag);
  if (at != args.end()) *(at + 1) = value;
  return args;
}

// A limit flag and its value as two words, as an operator types them ("--seconds ''" too); a
// value that looks like a flag is joined to it, which CLI11 would otherwise read as one.
std::vector<std::string> flag_words(const std::string& flag, const std::string& value) {
  if (!value.empty() && value[0] == '-') return {flag + "=" + value};
  return {flag, value};
}

// One `plb-sandbox sandbox-score ARGS...` command line, parsed as main.cpp parses it.
struct score_line {
  CLI::App root{"plb-sandbox test"};
  score_flags flags;
  CLI::App* command = root.add_subcommand("sandbox-score", "");

  score_line() { add_score_flags(*command, flags); }

  void parse(std::vector<std::string> args) { test::parse_as_main(root, "sandbox-score", std::move(args)); }

  // The usage_error's line that checking the parsed flags throws, or "" when none is thrown.
  std::string refusal() const {
    return test::usage_refusal([&] { (void)check_score_flags(flags); });
  }
};

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// A fresh directory for --output, so that the output checks pass unless a test plants a file.
class ScoreFlags : public test::temp_dir_test {
 protected:
  ScoreFlags() : temp_dir_test("plb-score-flags-test") {}

  std::vector<std::string> with(const std::vector<std::string>& extra) const {
    return required_and(dir_ + "/predictions.csv", extra);
  }

  score_line line_;
};

TEST_F(ScoreFlags, LimitsNotGivenAreTheLimitsDefaults) {
  line_.parse(with({}));
  const score_request r = check_score_flags(line_.flags);
  const sandbox::SandboxLimits defaults;
  for (const auto& field : sandbox::limit_table)
    EXPECT_EQ(r.limits.*(field.member), defaults.*(field.member)) << field.name;
  EXPECT_EQ(r.features, std::vector<std::string>{"x"});
  EXPECT_EQ(r.task, sandbox::task_type::regression);
  EXPECT_EQ(r.provenance, dir_ + "/predictions.csv.sandbox.json");
}

// --bundle and --bundle-sha256 come together: both are taken; one alone is a usage error naming
// the other flag; without either the request has no bundle (the one-mount run).
TEST_F(ScoreFlags, ABundleIsBothFlagsOrNeither) {
  line_.parse(with({}));
  EXPECT_FALSE(check_score_flags(line_.flags).has_bundle());
  score_line both;
  both.parse(with({"--bundle", dir_, "--bundle-sha256", std::string(64, 'c')}));
  const score_request r = check_score_flags(both.flags);
  ASSERT_TRUE(r.has_bundle());
  EXPECT_EQ(r.bundle, dir_);
  EXPECT_EQ(r.bundle_sha256->hex(), std::string(64, 'c'));
  EXPECT_EQ(std::string(r.names.bundle), "--bundle");
  score_line dir_only;
  dir_only.parse(with({"--bundle", dir_}));
  EXPECT_TRUE(starts_with(dir_only.refusal(), "--bundle " + dir_ + ": given without --bundle-sha256"))
      << dir_only.refusal();
  score_line digest_only;
  digest_only.parse(with({"--bundle-sha256", std::string(64, 'c')}));
  EXPECT_TRUE(starts_with(digest_only.refusal(), "--bundle-sha256: given without --bundle")) << digest_only.refusal();
  score_line bad_digest;
  bad_digest.parse(with({"--bundle", dir_, "--bundle-sha256", "abc"}));
  EXPECT_TRUE(starts_with(bad_digest.refusal(), "--bundle-sha256: ")) << bad_digest.refusal();
}

TEST(ScoreFlagsHelp, StatesTheLimitsDefaultsAndBounds) {
  const score_line line;
  const sandbox::SandboxLimits defaults;
  for (const auto& [flag, field] :
       {std::pair{"--seconds", limit_field::wall_seconds}, std::pair{"--memory-mb", limit_field::memory_mib}}) {
    const auto& i = sandbox::info(field);
    const std::string help = line.command->get_option(flag)->get_description();
    EXPECT_NE(help.find("default " + std::to_string(sandbox::get(defaults, field)) + ", " + std::to_string(i.min) +
                        " to " + std::to_string(i.max)),
              std::string::npos)
        << flag << ": " << help;
  }
}

TEST_F(ScoreFlags, GivenLimitsAreTaken) {
  const auto& wall = sandbox::info(limit_field::wall_seconds);
  const auto& memory = sandbox::info(limit_field::memory_mib);
  line_.parse(with({"--seconds", std::to_string(wall.max), "--memory-mb", std::to_string(memory.min)}));
  const score_request r = check_score_flags(line_.flags);
  EXPECT_EQ(r.limits.wall_seconds, wall.max);
  EXPECT_EQ(r.limits.memory_mib, memory.min);
}

// Each bound and each malformed value, one command line each: the line names the flag and the
// value, and says the bounds the limits hold.
TEST(ScoreFlagsBounds, AValueOutsideTheBoundsIsRefusedNamingTheFlag) {
  const auto& wall = sandbox::info(limit_field::wall_seconds);
  const auto& memory = sandbox::info(limit_field::memory_mib);
  const struct {
    const char* flag;
    std::string value;
    const sandbox::limit_info& bounds;
  } cases[] = {
      {"--seconds", std::to_string(wall.min - 1), wall},
      {"--seconds", std::to_string(wall.max + 1), wall},
      {"--seconds", "", wall},
      {"--seconds", "-5", wall},
      {"--seconds", "1.5", wall},
      {"--seconds", "010", wall},
      {"--seconds", "99999999999999999999999", wall},
      {"--memory-mb", std::to_string(memory.min - 1), memory},
      {"--memory-mb", std::to_string(memory.max + 1), memory},
      {"--memory-mb", "512M", memory},
  };
  for (const auto& c : cases) {
    score_line line;
    line.parse(required_and("/nonexistent-dir/p.csv", flag_words(c.flag, c.value)));
    const std::string why = line.refusal();
    EXPECT_TRUE(starts_with(why, std::string(c.flag) + (c.value.empty() ? " \"\"" : " " + c.value) + ": ")) << why;
    EXPECT_NE(why.find("from " + std::to_string(c.bounds.min) + " to " + std::to_string(c.bounds.max)),
              std::string::npos)
        << why;
  }
}

TEST_F(ScoreFlags, AnUnknownTaskTypeIsRefusedNamingTheFlag) {
  line_.parse(replacing(with({}), "--task-type", "ranking"));
  EXPECT_EQ(line_.refusal(), "--task-type ranking: expected regression or binary-classification");
}

TEST_F(ScoreFlags, ADigestThatIsNotOneIsRefusedNamingTheFlag) {
  line_.parse(replacing(with({}), "--model-sha256", "not-a-digest"));
  EXPECT_TRUE(starts_with(line_.refusal(), "--model-sha256: ")) << line_.refusal();
}

TEST_F(ScoreFlags, ARuntimeImageThatIsNoIdIsRefusedNamingTheFlag) {
  line_.parse(replacing(with({}), "--runtime-image", "python:3.11"));
  EXPECT_TRUE(starts_with(line_.refusal(), "--runtime-image python:3.11: ")) << line_.refusal();
}

TEST_F(ScoreFlags, AFeatureGivenTwiceIsRefused) {
  line_.parse(with({"--feature", "x"}));
  EXPECT_EQ(line_.refusal(), "--feature x: given more than once");
}

TEST_F(ScoreFlags, TheIdColumnMayNotAlsoBeAFeature) {
  line_.parse(with({"--id-column", "x"}));
  EXPECT_EQ(line_.refusal(), "--id-column x: also given as a feature");
}

TEST_F(ScoreFlags, AnOutputThatExistsIsRefusedNamingTheFlag) {
  std::ofstream(dir_ + "/predictions.csv") << "row,prediction\n";
  line_.parse(with({}));
  EXPECT_TRUE(starts_with(line_.refusal(), "--output " + dir_ + "/predictions.csv: already exists")) << line_.refusal();
}

TEST_F(ScoreFlags, FeaturesAreRepeatedFlagsInOrder) {
  line_.parse(with({"--feature", "b", "--feature", "a"}));
  EXPECT_EQ(line_.flags.features, (std::vector<std::string>{"x", "b", "a"}));
}

TEST_F(ScoreFlags, AFlagOfOneValueGivenTwiceIsRefusedByTheParser) {
  for (const std::string flag : {"--model", "--task-type", "--output", "--data"}) {
    score_line line;
    try {
      line.parse(with({flag, "again"}));
      ADD_FAILURE() << flag << " was taken twice";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  }
}

TEST_F(ScoreFlags, ASecondValueAfterOneFeatureIsAUsageErrorNotAFeature) {
  EXPECT_THROW(line_.parse(with({"--feature", "b", "c"})), CLI::ParseError);
}

TEST_F(ScoreFlags, EveryRequiredFlagIsRequired) {
  for (const std::string flag :
       {"--model", "--model-sha256", "--runtime-image", "--data", "--feature", "--task-type", "--output"}) {
    score_line line;
    std::vector<std::string> args = with({});
    const auto at = std::find(args.begin(), args.end(), flag);
    ASSERT_NE(at, args.end());
    args.erase(at, at + 2);
    try {
      line.parse(args);
      ADD_FAILURE() << "parsed without " << flag;
    } catch (const CLI::RequiredError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace plb::cli
