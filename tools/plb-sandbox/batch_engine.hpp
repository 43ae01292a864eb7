// The two ways a batch runs: here, with --jobs runs at once (run_local_batch), or as one Slurm job
// array whose tasks each run one line on their node (batch_slurm.hpp). Both leave the same files.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "batch.hpp"
#include "batch_output_dir.hpp"
#include "batch_records.hpp"
#include "batch_summary.hpp"
#include "preflight.hpp"
#include "score.hpp"

namespace plb::tool {

struct batch_progress {
  std::size_t total = 0, done = 0, running = 0, failed = 0;
  double elapsed_seconds = 0;
};

struct batch_hooks {
  const sandbox::stop_source* stop = nullptr;
  std::function<void(const batch_progress&)> on_progress;                 // about every 200 ms; may be empty
  std::function<void(const batch_item&, const line_outcome&)> on_finish;  // each line that ran; may be empty
  std::function<void(const std::string&)> on_submitted;                   // a Slurm job's ID; may be empty
};

struct batch_outcome {
  std::vector<line_outcome> outcomes;  // one per manifest line
  int stopped_by = 0;                  // the stop request that ended the batch
};

// Where a batch starts: kept and conflicting lines from resume, "pending" for the rest.
struct batch_start {
  std::vector<line_outcome> outcomes;    // one per manifest line
  std::vector<std::string> data_sha256;  // one per manifest line, for its record
  std::vector<std::size_t> to_run;       // the lines that will run, in manifest order
};
batch_start start_batch(const batch_config& config, const batch_plan& plan, const output_dir& dir);

// Runs one line to its outcome and writes its signed record (not for a stopped run: nothing is
// recorded, the line runs again next time). A success's record carries the digests of the CSV and
// provenance as they are in `dir` once published.
// `origin` names the node and worker, recorded with the outcome.
line_outcome run_line(const batch_item& item, const run_hooks& hooks, const output_dir& dir,
                      const std::string& data_sha256, const worker_report& origin = {});

// The host preflight for these lines, once per runtime image, then the sweep: what a local batch
// and a Slurm worker do before their first run. Throws failure(host_refused).
std::map<std::string, host_facts> preflight_once(const batch_plan& plan, const std::vector<std::size_t>& lines,
                                                 const cancellation& cancel);

// The local engine: preflight and sweep once, then `jobs` runs at a time.
batch_outcome run_local_batch(const batch_config& config, const batch_plan& plan, unsigned jobs,
                              const batch_hooks& hooks);

// A failed line is one whose verdict is not success.
bool is_failure(const line_outcome& o);

}  // namespace plb::tool
