// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox batch`: many sandbox-score runs from one JSON Lines manifest, on this host (local/)
// or on the workers of a queued backend such as Slurm (slurm/; backend.hpp). Every run is exactly
// a sandbox-score run; the batch adds a plan, per-line records, resume and a summary.
//
// The output directory holds, per line, `<id>.csv` and `<id>.csv.sandbox.json` (a success),
// `<id>.result.json` (every verdict: the record resume and the summary read) and, with
// --keep-stderr, `<id>.stderr` (the operator's diagnostics file, never read by the tool), and for the batch
// `batch-summary.csv` and `batch-summary.json`, replaced atomically as runs finish. IDs cannot
// collide with each other's files or the batch's (batch_manifest.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/exit_codes.hpp"
#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/runner.hpp"

namespace plb::batch {

// The batch's own exit code when some lines could not be run at all (a conflict with earlier
// outputs, a task that left no record, a stop): its row in the core's one table (exit_codes.hpp).
inline constexpr int batch_incomplete_exit_code = sandbox::exit_code_named("batch_incomplete");

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
  bool keep_stderr = false;  // --keep-stderr: each line's <id>.stderr for the operator (off: the spec's run)
};

// One manifest line, resolved against the defaults: exactly the request sandbox-score would get.
struct batch_item {
  std::size_t index = 0;  // 0-based position in the manifest
  std::size_t line = 0;   // 1-based, for messages
  std::string id;
  sandbox::scoring_request request;
};

// Every line's request, kept as one compact row per line: its ID, model path and digest in one
// shared buffer, and indexes into tables of the values lines share (images, data files, features,
// ID columns, limits, the output directory), so that 100,000 lines cost a few MiB, not a resolved
// request each. item(i) rebuilds line i's request exactly as it was checked.
class batch_plan {
 public:
  std::string manifest_sha256;

  std::size_t size() const noexcept { return rows_.size(); }
  bool empty() const noexcept { return rows_.empty(); }
  batch_item item(std::size_t i) const;
  std::string_view id(std::size_t i) const;
  std::size_t line(std::size_t i) const { return rows_.at(i).line; }
  // The line with this ID, if any.
  std::optional<std::size_t> find(std::string_view id) const;
  const sandbox::SandboxLimits& limits(std::size_t i) const { return limits_[rows_.at(i).limits]; }
  const std::string& runtime_image(std::size_t i) const { return images_[rows_.at(i).image]; }
  // The lines' data files, each once: data_index(i) is line i's among data_files().
  const std::vector<std::string>& data_files() const noexcept { return data_; }
  // --keep-stderr: every line's request asks for its diagnostics file, <id>.stderr beside <id>.csv.
  void keep_stderr(bool keep) noexcept { keep_stderr_ = keep; }
  std::size_t data_index(std::size_t i) const { return rows_.at(i).data; }

  // Room for `lines` more lines holding about `text_bytes` of their own text: no growth by doubling.
  void reserve(std::size_t lines, std::size_t text_bytes);
  // Appends the next line (its index is size() before the call).
  void add(std::size_t line, const std::string& id, const sandbox::scoring_request& request);
  // Once every line is in: drops the look-up tables add() keeps and returns unused capacity.
  void seal();
  // What the plan holds, in bytes (its rows, its buffer and its tables; not the look-ups add() keeps).
  std::size_t memory_bytes() const noexcept;

  struct row {               // one line; every field an offset, a length or an index
    std::uint32_t text = 0;  // the ID, the model file's name and the digest, back to back
    std::uint16_t id_bytes = 0, sha_bytes = 0;
    std::uint32_t model_bytes = 0, model_dir = 0;  // the model's directory is interned
    std::uint32_t line = 0;
    std::uint32_t image = 0, data = 0, features = 0, id_column = 0, limits = 0, output = 0;
    sandbox::task_type task = sandbox::task_type::regression;
    bool output_is_dir = false;  // `output` is the directory of <id>.csv, else the whole path
  };

 private:
  std::vector<row> rows_;
  std::string text_;  // each row's ID, model file name and model digest, back to back
  std::vector<std::string> images_, data_, id_columns_, outputs_, model_dirs_;
  std::vector<std::vector<std::string>> features_;
  std::vector<sandbox::SandboxLimits> limits_;
  // The lines' model bundles (path and digest), each once, index 0 none; and each line's index,
  // kept only once a line has a bundle (a batch without bundles holds none of it).
  std::vector<std::pair<std::string, std::string>> bundles_{{}};
  std::vector<std::uint32_t> bundle_of_;
  struct lookups;
  std::shared_ptr<lookups> lookups_;  // add()'s interning; null once sealed
  std::vector<std::uint32_t> by_id_;  // the lines in ID order, once sealed
  bool keep_stderr_ = false;
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
  std::string predictions_sha256;                  // of a success
  std::string node = {}, worker = {};              // where it ran: its backend's identity (a host and "local", ...)
  std::optional<std::uint64_t> bundle_bytes = {};  // a bundle run's snapshot, from its provenance (a success's)
};

// One outcome per manifest line, kept compactly: each row's strings (state, message, digest, node,
// worker) are indexes into one pool that holds each distinct string once, so that 100,000 lines
// that failed alike cost a row each (64 bytes), not a line_outcome each with its own message.
class outcome_list {
 public:
  outcome_list() = default;
  explicit outcome_list(std::size_t lines) { resize(lines); }
  outcome_list(const std::vector<line_outcome>& outcomes);  // NOLINT(google-explicit-constructor): tests' literals
  std::size_t size() const noexcept { return rows_.size(); }
  void resize(std::size_t lines);
  line_outcome operator[](std::size_t i) const;
  void set(std::size_t i, const line_outcome& o);
  std::string_view state(std::size_t i) const { return pool_->text(rows_.at(i).state); }
  void set_state(std::size_t i, std::string_view state) { rows_.at(i).state = pool_->index(state); }
  // What the list holds, in bytes (its rows and its pool's strings; not the pool's look-up).
  std::size_t memory_bytes() const noexcept;

  struct row {
    std::uint32_t state = 0, message = 0, predictions_sha256 = 0, node = 0, worker = 0;
    std::int32_t exit_code = -1;
    std::uint32_t bundle_bytes = 0;  // its decimal text in the pool ("": no bundle): the row stays 80 bytes
    bool has_usage = false;
    sandbox::sandbox_usage usage;
  };

 private:
  class pool {
   public:
    pool();
    std::uint32_t index(std::string_view s);
    std::string_view text(std::uint32_t i) const { return strings_[i]; }
    std::size_t memory_bytes() const noexcept;

   private:
    std::deque<std::string> strings_;  // stable addresses: the look-up's keys view them
    std::unordered_map<std::string_view, std::uint32_t> index_;
  };
  std::vector<row> rows_;
  std::shared_ptr<pool> pool_ = std::make_shared<pool>();
};

// A worker's own account of itself (batch_claims.hpp), for the summary; its worker and node are
// also its backend's identity (backend.hpp).
struct worker_report {
  std::string worker, node, state, message;  // state: running, refused (its preflight failed), done
};

// True when `state` is a verdict (the line ran to its end).
bool is_verdict(const std::string& state);

}  // namespace plb::batch
