// SPDX-License-Identifier: Apache-2.0
// The batch command's flags, parsed by CLI11 into a batch_config and the backend's options.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "batch/backend.hpp"
#include "batch/batch.hpp"
#include "batch_finish_flags.hpp"

namespace plb::cli {

// The batch library's names the command line uses, said once.
using batch::batch_config;
using batch::batch_hooks;
using batch::batch_incomplete_exit_code;
using batch::batch_item;
using batch::batch_outcome;
using batch::batch_plan;
using batch::batch_progress;
using batch::count_states;
using batch::is_verdict;
using batch::line_outcome;
using batch::plan_batch;
using batch::retry_policy;

struct batch_flags {
  std::string manifest, output_dir, retry;
  // --backend (or --engine, its old name): the batch backend that runs the lines (batch/backend.hpp)
  std::string backend = "local";
  std::string runtime_image, data, task_type, id_column, seconds, memory_mb;
  std::vector<std::string> features;
  unsigned jobs = 0;
  bool verbose = false, no_wait = false, collect = false, worker = false, keep_stderr = false;
  unsigned workers = 0;         // a queued backend's worker tasks (0: what the lines and --jobs need)
  std::string manifest_sha256;  // with --worker: the manifest as it was submitted
  std::string partition, account;
  std::vector<std::string> sbatch_options;
  batch_finish_flags finish;  // --no-report, --verify ...
  CLI::Option *seconds_option = nullptr, *memory_option = nullptr, *retry_option = nullptr, *jobs_option = nullptr;
};

void add_batch_flags(CLI::App& command, batch_flags& flags);

// The configuration the flags describe, paths made absolute. Throws failure(usage_error) naming the flag.
batch_config batch_config_from(const batch_flags& flags);

// The flags a queued backend's worker task repeats: the defaults and the retry policy, as given.
std::vector<std::string> task_flags_from(const batch_config& config);

}  // namespace plb::cli
