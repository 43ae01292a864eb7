// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox batch`: many sandbox-score runs from one JSON Lines manifest, on this host
// (batch_local.cpp) or as a Slurm job array (batch_slurm.cpp). Every run is exactly a
// sandbox-score run; the batch adds a plan, per-line records, resume and a summary.
//
// The output directory holds, per line, `<id>.csv` and `<id>.csv.sandbox.json` (a success) and
// `<id>.result.json` (every verdict: the record resume and the summary read), and for the batch
// `batch-summary.csv` and `batch-summary.json`, replaced atomically as runs finish. IDs cannot
// collide with each other's files or the batch's (batch_manifest.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/runner.hpp"

namespace plb::batch {

// The batch's own exit code when some lines could not be run at all (a conflict with earlier
// outputs, a task that left no record, a stop): distinct from every verdict's code.
inline constexpr int batch_incomplete_exit_code = 12;
static_assert([] {
  for (const auto& row : sandbox::verdict_table)
    if (row.exit_code == batch_incomplete_exit_code) return false;
  return true;
}());

// What the command line gives every line that does not say otherwise.
struct batch_defaults {
  std::string runtime_image, data, task_type, id_column;
  std::vector<std::string> features;
  std::optional<std::uint64_t> wall_seconds, memory_mib;
};

enum class retry_policy {
  none,           // a line with a record keeps its verdict
  host_failures,  // --retry-failed: runtime_failed, cleanup_failed, internal_error, host_refused
  all_failures,   // --retry-failed=all
};

struct batch_config {
  std::string manifest_path;  // absolute
  std::string output_dir;     // absolute
  batch_defaults defaults;
  retry_policy retry = retry_policy::none;
};

// One manifest line, resolved against the defaults: exactly the request sandbox-score would get.
struct batch_item {
  std::size_t index = 0;  // 0-based position in the manifest (Slurm's array index)
  std::size_t line = 0;   // 1-based, for messages
  std::string id;
  sandbox::scoring_request request;
};

struct batch_plan {
  std::string manifest_sha256;
  std::vector<batch_item> items;
};

// Reads and checks the manifest and every line's request, before anything runs. Relative paths
// in the manifest are relative to its directory. Throws failure(input_refused) naming the
// manifest, the line, the ID and the field.
batch_plan plan_batch(const batch_config& config);

// What became of one line, as its record and the summary hold it.
struct line_outcome {
  std::string state;  // a verdict's name, or "pending", "running", "interrupted", "not_run"
  int exit_code = -1;
  std::string message;
  std::optional<sandbox::sandbox_usage> usage;
  std::string predictions_sha256;      // of a success
  std::string node = {}, worker = {};  // where it ran (a Slurm node and "<job>_<task>", or the host and "local")
};

// A Slurm worker's own account of itself (batch_claims.hpp), for the summary.
struct worker_report {
  std::string worker, node, state, message;  // state: running, refused (its preflight failed), done
};

// True when `state` is a verdict (the line ran to its end).
bool is_verdict(const std::string& state);

}  // namespace plb::batch
