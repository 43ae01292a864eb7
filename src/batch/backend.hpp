// SPDX-License-Identifier: Apache-2.0
// A batch backend: where a batch's lines run. Every backend leaves the same files (the signed
// records, the summary) through run_line, so a summary does not say which one ran it.
//
// Adding one (say Kubernetes) is one folder and one registration: a folder under src/batch/ whose
// .cpp files the build picks up (src/batch/CMakeLists.txt globs them), a class deriving from
// `backend`, and one row in backends.cpp's table. Everything a backend means to the rest is asked
// of it here: its name, whether it queues, how its workers name themselves (identity: a scheduler's
// backend reads its scheduler's variables, and nothing else does), the help of the flags it reads
// and what is said when it submits. The command line's --backend takes the registered names; the
// flags that only mean something to a scheduler's queue are refused by any backend that says it
// has none.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_summary.hpp"
#include "runner/for_batch.hpp"

namespace plb::batch {

struct batch_progress {
  std::size_t total = 0, done = 0, running = 0, failed = 0;
  double elapsed_seconds = 0;
};

struct batch_hooks {
  const sandbox::stop_source* stop = nullptr;
  std::function<void(const batch_progress&)> on_progress;                 // about every 200 ms; may be empty
  std::function<void(const batch_item&, const line_outcome&)> on_finish;  // each line that ran; may be empty
  std::function<void(const std::string&)> on_submitted;                   // a queued backend's job; may be empty
};

struct batch_outcome {
  outcome_list outcomes;  // one per manifest line
  int stopped_by = 0;     // the stop request that ended the batch
};

// Where a batch starts: kept and conflicting lines from resume, "pending" for the rest.
struct batch_start {
  outcome_list outcomes;                 // one per manifest line
  std::vector<std::string> data_sha256;  // one per data file (plan.data_files()), for the records
  const std::string& data_digest(const batch_plan& plan, std::size_t line) const {
    return data_sha256[plan.data_index(line)];
  }
  std::vector<std::size_t> to_run;  // the lines that will run, in manifest order
};
batch_start start_batch(const batch_config& config, const batch_plan& plan, const output_dir& dir);

// A line's fields as its messages name them: the manifest's keys ("model", "data", ...), whether
// the value came from the line or from the command line's default. Planning checks each line under
// them, and its run's messages use them too (batch_plan.cpp).
extern const field_names manifest_names;

// Runs one line to its outcome and writes its signed record (not for a stopped run: nothing is
// recorded, the line runs again next time). A success's record carries the digests of the CSV and
// provenance as they are in `dir` once published.
// `origin` names the node and worker (the backend's identity), recorded with the outcome.
line_outcome run_line(const batch_item& item, const run_hooks& hooks, const output_dir& dir,
                      const std::string& data_sha256, const worker_report& origin);

// The host preflight for these lines, once per runtime image, then the sweep: what a local batch
// and a queued backend's worker do before their first run (batch_preflight.cpp). Throws
// failure(host_refused).
std::map<std::string, host_facts> preflight_once(const batch_plan& plan, const std::vector<std::size_t>& lines,
                                                 const cancellation& cancel);

// What the command line gives whichever backend it picked.
struct backend_options {
  unsigned jobs = 0;     // runs at once (a queued backend: per worker); 0 the backend's default
  unsigned workers = 0;  // a queued backend's workers; 0: what the lines and `jobs` need
  bool wait = true;      // false: submit and return (queued backends only)
  // A queued backend's own placement, passed through as given.
  std::string partition, account;
  std::vector<std::string> scheduler_options;
  std::vector<std::string> task_flags;  // the batch flags each remote task repeats (defaults, retry)
};

// What each of backend_options (and --collect) means to one backend, a phrase each for the
// command line's help, which names every backend's meaning; empty when it means nothing to it.
struct backend_help {
  std::string_view jobs = {}, workers = {}, no_wait = {}, collect = {}, partition = {}, account = {},
                   scheduler_option = {};
};

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string_view name() const noexcept = 0;  // what --backend names it by
  // True for a backend that submits to a scheduler's queue: it supports --no-wait and --collect,
  // and the placement options; false for one that runs the lines itself.
  virtual bool queued() const noexcept = 0;
  virtual const backend_help& help() const noexcept = 0;
  // This process as one of this backend's workers, as claims, records, provenance and the summary
  // name it: worker and node are safe names (is_safe_name) or "unknown"; state "running". The
  // submitter tells its live workers by these names.
  virtual worker_report identity() const = 0;
  // What the command line says once this backend has submitted `job` ("submitted Slurm job 42").
  virtual std::string submitted_text(const std::string& job) const;
  // Runs (or submits, without `wait`) every line that needs a run, and returns one outcome per line.
  virtual batch_outcome run(const batch_config& config, const batch_plan& plan, const backend_options& options,
                            const batch_hooks& hooks) const = 0;
  // --collect: the outcome of an earlier submission of this plan, waiting for it if still queued.
  virtual batch_outcome collect(const batch_config& config, const batch_plan& plan, const batch_hooks& hooks) const;
};

// The registered backends (backends.cpp), in the order --backend lists them; the first is the default.
std::span<const backend* const> backends() noexcept;
// Null when no backend has that name.
const backend* find_backend(std::string_view name) noexcept;

// A failed line is one whose verdict is not success.
bool is_failure(const line_outcome& o);

}  // namespace plb::batch
