// SPDX-License-Identifier: Apache-2.0
// The batch flags (tools/plb-sandbox/batch_flags.hpp), parsed by CLI11 as main.cpp parses them:
// the defaults a line falls back on, each bound refused naming its flag, the flags that conflict
// with the backend or with each other refused, and the flags a worker repeats read back the same.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "batch_flags.hpp"
#include "command_line.hpp"
#include "support/failure.hpp"

namespace plb::cli {
namespace {

using sandbox::verdict;

// The registry's default backend (the first, which runs the lines itself) and a queued one.
std::string default_backend() { return std::string(batch::backends().front()->name()); }
std::optional<std::string> queued_backend() {
  for (const batch::backend* b : batch::backends())
    if (b->queued()) return std::string(b->name());
  return std::nullopt;
}

// One `plb-sandbox batch --manifest m.jsonl --output-dir out ARGS...` command line, parsed as
// main.cpp parses it (the two required flags first, unless `args` gives its own).
struct batch_line {
  CLI::App root{"plb-sandbox test"};
  batch_flags flags;

  batch_line() { add_batch_flags(*root.add_subcommand("batch", ""), flags); }

  void parse(std::vector<std::string> args, bool required = true) {
    if (required) args.insert(args.begin(), {"--manifest", "m.jsonl", "--output-dir", "out"});
    test::parse_as_main(root, "batch", std::move(args));
  }

  // The usage_error's line that batch_config_from throws, or "" when none is thrown.
  std::string refusal() const {
    return test::usage_refusal([&] { (void)batch_config_from(flags); });
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(BatchFlags, WithoutDefaultsEachLineKeepsItsOwnOrTheLimitsDefault) {
  batch_line line;
  line.parse({});
  const batch_config c = batch_config_from(line.flags);
  EXPECT_EQ(line.flags.backend, default_backend());
  EXPECT_FALSE(c.defaults.wall_seconds) << "not given: the line's own value, else the limits' default";
  EXPECT_FALSE(c.defaults.memory_mib);
  EXPECT_TRUE(c.defaults.features.empty());
  EXPECT_EQ(c.defaults.data, "") << "an empty path stays empty, not the current directory";
  EXPECT_EQ(c.retry, retry_policy::none);
  EXPECT_EQ(line.flags.jobs, 0u) << "0: the backend's own default";
  EXPECT_TRUE(task_flags_from(c).empty());
}

TEST(BatchFlags, PathsAreMadeAbsolute) {
  batch_line line;
  line.parse({"--data", "inputs/../d.csv"});
  const batch_config c = batch_config_from(line.flags);
  const auto cwd = std::filesystem::current_path();
  EXPECT_EQ(c.manifest_path, (cwd / "m.jsonl").string());
  EXPECT_EQ(c.output_dir, (cwd / "out").string());
  EXPECT_EQ(c.defaults.data, (cwd / "d.csv").string());
}

TEST(BatchFlags, EitherRequiredFlagMissingIsRefusedByTheParser) {
  for (const char* missing : {"--manifest", "--output-dir"}) {
    batch_line line;
    std::vector<std::string> args{"--manifest", "m.jsonl", "--output-dir", "out"};
    args.erase(std::find(args.begin(), args.end(), missing), std::find(args.begin(), args.end(), missing) + 2);
    try {
      line.parse(args, false);
      ADD_FAILURE() << "parsed without " << missing;
    } catch (const CLI::RequiredError& e) {
      EXPECT_TRUE(contains(e.what(), missing)) << e.what();
    }
  }
}

TEST(BatchFlags, AnEmptyOutputDirIsRefused) {
  batch_line line;
  line.parse({"--manifest", "m.jsonl", "--output-dir", ""}, false);
  EXPECT_EQ(line.refusal(), "--output-dir is empty");
}

TEST(BatchFlags, GivenLimitDefaultsAreTaken) {
  const auto& wall = sandbox::info(sandbox::limit_field::wall_seconds);
  batch_line line;
  line.parse({"--seconds", std::to_string(wall.max), "--memory-mb", "1024"});
  const batch_config c = batch_config_from(line.flags);
  EXPECT_EQ(c.defaults.wall_seconds, wall.max);
  EXPECT_EQ(c.defaults.memory_mib, 1024u);
}

TEST(BatchFlags, ALimitDefaultOutsideItsBoundsIsRefusedNamingTheFlag) {
  const auto& wall = sandbox::info(sandbox::limit_field::wall_seconds);
  const auto& memory = sandbox::info(sandbox::limit_field::memory_mib);
  for (const std::vector<std::string>& given : {std::vector<std::string>{"--seconds", std::to_string(wall.max + 1)},
                                                {"--seconds", "0"},
                                                {"--seconds", ""},
                                                {"--memory-mb", std::to_string(memory.min - 1)},
                                                {"--memory-mb", "lots"}}) {
    batch_line line;
    line.parse(given);
    const std::string why = line.refusal();
    EXPECT_EQ(why.rfind(given[0] + " ", 0), 0u) << given[0] << " '" << given[1] << "': " << why;
  }
}

TEST(BatchFlags, AnUnknownTaskTypeIsRefusedNamingTheFlag) {
  batch_line line;
  line.parse({"--task-type", "ranking"});
  EXPECT_EQ(line.refusal(), "--task-type ranking: expected regression or binary-classification");
}

TEST(BatchFlags, JobsAndWorkersAreBoundedByTheParser) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--jobs", "0"}, {"--jobs", "1025"}, {"--workers", "0"}, {"--jobs", "two"}}) {
    batch_line line;
    try {
      line.parse(bad);
      ADD_FAILURE() << bad[0] << " " << bad[1] << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_TRUE(contains(e.what(), bad[0])) << e.what();
    }
  }
}

TEST(BatchFlags, ABackendNotRegisteredIsRefusedByTheParser) {
  for (const char* flag : {"--backend", "--engine"}) {
    batch_line line;
    try {
      line.parse({flag, "kubernetes-someday"});
      FAIL() << "an unknown backend was accepted by " << flag;
    } catch (const CLI::ValidationError& e) {
      EXPECT_TRUE(contains(e.what(), "--backend")) << e.what();
    }
  }
}

// --engine is --backend's old name: job scripts and operators' scripts written before still pass it.
TEST(BatchFlags, TheOldNameEngineStillChoosesTheBackend) {
  for (const std::string& name : {default_backend(), queued_backend().value_or(default_backend())}) {
    batch_line by_backend, by_engine;
    by_backend.parse({"--backend", name});
    by_engine.parse({"--engine", name});
    EXPECT_EQ(by_backend.flags.backend, name);
    EXPECT_EQ(by_engine.flags.backend, name) << "--engine " << name;
    EXPECT_EQ(by_engine.refusal(), "");
  }
}

TEST(BatchFlags, RetryFailedTakesNothingOrAll) {
  batch_line host, all, other;
  host.parse({"--retry-failed"});
  EXPECT_EQ(batch_config_from(host.flags).retry, retry_policy::host_failures);
  all.parse({"--retry-failed=all"});
  EXPECT_EQ(batch_config_from(all.flags).retry, retry_policy::all_failures);
  EXPECT_THROW(other.parse({"--retry-failed=some"}), CLI::ValidationError);
}

// What only a queued backend does, asked of the default one, which runs the lines itself.
TEST(BatchFlags, QueueOnlyFlagsNeedAQueuedBackend) {
  for (const std::vector<std::string>& given : {std::vector<std::string>{"--no-wait"},
                                                {"--collect"},
                                                {"--partition", "gpu"},
                                                {"--account", "lab"},
                                                {"--sbatch-option=--qos=eval"},
                                                {"--workers", "4"}}) {
    batch_line line;
    line.parse(given);
    const std::string why = line.refusal();
    const std::string flag = given[0].substr(0, given[0].find('=', 2));
    EXPECT_TRUE(contains(why, flag)) << flag << " with --backend " << line.flags.backend << ": " << why;
    EXPECT_TRUE(contains(why, "--backend")) << why;
  }
}

TEST(BatchFlags, QueueOnlyFlagsAreTakenByAQueuedBackend) {
  const auto queued = queued_backend();
  if (!queued) GTEST_SKIP() << "no queued backend registered";
  batch_line line;
  line.parse({"--backend", *queued, "--no-wait", "--partition", "gpu", "--workers", "4"});
  EXPECT_EQ(line.refusal(), "");
}

TEST(BatchFlags, AWorkerIsNotAWayToSubmitOrCollect) {
  const auto queued = queued_backend();
  if (!queued) GTEST_SKIP() << "no queued backend registered";
  for (const std::vector<std::string>& given : {std::vector<std::string>{"--worker", "--collect", "--backend", *queued},
                                                {"--worker", "--no-wait", "--backend", *queued}}) {
    batch_line line;
    line.parse(given);
    EXPECT_TRUE(contains(line.refusal(), "--worker")) << line.refusal();
  }
  // The job script's own form: a worker learns who it is from its backend (backend::identity).
  batch_line job_script;
  job_script.parse({"--worker", "--backend", *queued});
  EXPECT_EQ(job_script.refusal(), "");
}

TEST(BatchFlags, TheManifestDigestGoesOnlyWithAWorker) {
  batch_line alone, worker;
  alone.parse({"--manifest-sha256", std::string(64, 'a')});
  EXPECT_TRUE(contains(alone.refusal(), "--manifest-sha256")) << alone.refusal();
  worker.parse({"--worker", "--manifest-sha256", std::string(64, 'a')});
  EXPECT_EQ(worker.refusal(), "");
}

// A worker is started with task_flags_from(config): parsed again, they give the same defaults.
TEST(BatchFlags, TheFlagsAWorkerRepeatsReadBackTheSame) {
  const std::vector<std::string> given{"--runtime-image",
                                       "sha256:" + std::string(64, 'b'),
                                       "--data",
                                       "/srv/d.csv",
                                       "--feature",
                                       "a",
                                       "--feature",
                                       "b",
                                       "--task-type",
                                       "binary-classification",
                                       "--id-column",
                                       "id",
                                       "--seconds",
                                       "90",
                                       "--memory-mb",
                                       "2048",
                                       "--retry-failed=all"};
  batch_line line;
  line.parse(given);
  const batch_config first = batch_config_from(line.flags);
  const std::vector<std::string> repeated = task_flags_from(first);
  EXPECT_EQ(repeated, given);

  batch_line again;
  again.parse(repeated);
  const batch_config second = batch_config_from(again.flags);
  EXPECT_EQ(second.defaults.runtime_image, first.defaults.runtime_image);
  EXPECT_EQ(second.defaults.data, first.defaults.data);
  EXPECT_EQ(second.defaults.features, first.defaults.features);
  EXPECT_EQ(second.defaults.task_type, first.defaults.task_type);
  EXPECT_EQ(second.defaults.id_column, first.defaults.id_column);
  EXPECT_EQ(second.defaults.wall_seconds, first.defaults.wall_seconds);
  EXPECT_EQ(second.defaults.memory_mib, first.defaults.memory_mib);
  EXPECT_EQ(second.retry, first.retry);
}

}  // namespace
}  // namespace plb::cli
