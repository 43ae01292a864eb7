// SPDX-License-Identifier: Apache-2.0
// The runner: one call that does everything `plb-sandbox sandbox-score` does (preflight, script
// snapshot, input, the gVisor run under its watchdog and reaper, cleanup, verdict, outputs), for
// programs that embed the executor instead of shelling out to it.
//
// Unlike the rest of include/plb/sandbox/, this header is not header-only: link the compiled
// library, `plb::sandbox_runner` (it needs Boost.Process, cpp-httplib and OpenSSL). The command
// line tool is a thin layer over this call.
//
// The runner never prints, never exits the process and installs no signal handler. A caller that
// wants SIGINT/SIGTERM to stop a run triggers a stop_source from its own handler or signal thread
// (request_stop is one atomic store, safe in a handler); the run then removes its container and
// run directory, publishes nothing and returns with `stopped_by` set. While a run writes the
// script's stdin, SIGPIPE is blocked in the calling thread only (and any pending one consumed);
// the process's dispositions are never changed. Each run forks one small reaper process (see
// SECURITY.md), which makes only async-signal-safe calls, so a multi-threaded caller is fine.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/scoring_progress.hpp"
#include "plb/sandbox/stderr_diagnostics.hpp"
#include "plb/sandbox/stop_source.hpp"
#include "plb/sandbox/task_type.hpp"
#include "plb/sandbox/verdict.hpp"

namespace plb::sandbox {

// What to score: sandbox-score's inputs, and every limit (the command line exposes only time and
// memory). Everything is checked before anything runs; a bad field is a usage_error naming it.
struct scoring_request {
  std::string model_path;
  std::string model_sha256;   // the reviewed digest: 64 hex digits, as sha256sum prints it
  std::string runtime_image;  // the reviewed image's local ID: sha256:<64 lowercase hex>
  std::string data_path;      // CSV; only the features (and the ID column) are read
  std::vector<std::string> features;
  std::string id_column;  // empty: rows are numbered from 0
  task_type task = task_type::regression;
  std::string output_path;  // must not exist; the provenance goes to output_path + ".sandbox.json";
                            // a missing directory is created 0700 with them (README, "Quick start")
  SandboxLimits limits;     // each field within its bounds (limits.hpp: validate)
  // Optional, both or neither: a model bundle (a directory of weights and files) and its reviewed
  // digest (64 hex digits, as `plb-sandbox bundle-digest` prints). It is snapshotted into the run's
  // private directory, checked against the digest before any container exists, and mounted
  // read-only at /sandbox/bundle (sandbox_policy.hpp's bundle_target). Empty: today's one-mount run.
  std::string bundle_path;
  std::string bundle_sha256;
  // Opt-in, for the operator's eyes only (stderr_diagnostics.hpp; README, "Privacy"): the last
  // stderr_tail_kib KiB of the script's stderr, escaped, written 0600 and fresh like the outputs to
  // stderr_path (empty: output_path + ".stderr") for every verdict the script reached (script_failed,
  // timeout, memory_exhausted, output_cap_exceeded, output_rejected, success). Off: stderr is
  // discarded unread, as the spec says. Nothing of it reaches the result's message.
  bool keep_stderr = false;
  std::string stderr_path;
  std::uint64_t stderr_tail_kib = stderr_tail_bounds::default_kib;  // within stderr_tail_bounds
};

struct scoring_options {
  std::function<void(const scoring_progress&)> on_progress;  // may be empty (scoring_progress.hpp)
  const stop_source* stop = nullptr;                         // may be null (stop_source.hpp)
};

// Where a run's time went, in seconds: the tool's own phases around the sandbox's (what
// ci/bench/bench-e2e splits the tool's cost into). Zero for a phase the run did not reach.
struct scoring_phases {
  double preflight = 0;  // the reaper, the host checks and the sweep, with the inputs read alongside
                         // (a batch line has no checks or sweep: the batch made them)
  double start = 0;      // what remains of the inputs and the snapshot, up to the docker client's launch
  double run = 0;        // the docker client's life: the container created, started, run and exited
  double cleanup = 0;    // the container inspected, and its removal confirmed
  double publish = 0;    // the predictions checked and both outputs written
};

struct scoring_result {
  verdict outcome = verdict::internal_error;
  int exit_code = plb::sandbox::exit_code(verdict::internal_error);  // the command line's code
  std::string message;           // one line of printable ASCII; never holds the script's output
  std::string predictions_path;  // set when published
  std::string provenance_path;
  std::string stderr_path;             // set when the diagnostics file was written (keep_stderr)
  std::optional<sandbox_usage> usage;  // once the sandbox has run
  double total_seconds = 0;
  scoring_phases phases;
  int stopped_by = 0;  // a stop request's reason, when one ended the run (nothing published)

  explicit operator bool() const noexcept { return outcome == verdict::success && stopped_by == 0; }
};

// Runs one scoring to its verdict. Throws nothing; every failure is a result.
scoring_result score(const scoring_request& request, const scoring_options& options = {});

// The in-memory form, for a scorer that holds its features in memory and wants the predictions
// back there: no CSV in, no predictions or provenance file out. It runs through score()'s code
// (the same preflight, snapshot, sandbox, watchdog, reaper, cleanup, verdict and predictions
// check); only where the inputs come from and where the outcome goes differ. The one file it
// writes is the run's own private directory under /var/lib/plb-sandbox/runs (the script's
// snapshot, the sandbox's only mount), removed before it returns, as score() does.
struct in_memory_request {
  std::string script_path;    // the script on disk, or...
  std::string script_bytes;   // ...its bytes: exactly one of the two is set
  std::string script_sha256;  // the reviewed digest: 64 hex digits
  std::string runtime_image;  // sha256:<64 lowercase hex>
  // The features, row-major: rows * columns finite values, at most limits.input_values of them.
  // The caller keeps them alive for the call; the run takes its own copy.
  const double* features = nullptr;
  std::size_t rows = 0, columns = 0;
  std::vector<std::string> feature_names;  // optional, for the provenance: empty means "0", "1", ...
  task_type task = task_type::regression;
  SandboxLimits limits;
  // Optional, both or neither, as scoring_request's: a model bundle on disk and its reviewed digest.
  std::string bundle_path;
  std::string bundle_sha256;
  // Opt-in: the script's stderr tail, escaped as the diagnostics file holds it, returned in
  // in_memory_result::stderr_diagnostics (no file is written). For the operator's eyes only.
  bool keep_stderr = false;
  std::uint64_t stderr_tail_kib = stderr_tail_bounds::default_kib;
};

struct in_memory_result {
  verdict outcome = verdict::internal_error;
  int exit_code = plb::sandbox::exit_code(verdict::internal_error);
  std::string message;              // one line of printable ASCII; never holds the script's output
  std::vector<double> predictions;  // one per row, in row order; empty unless successful
  std::optional<sandbox_usage> usage;
  // On success: the record score() would have written (its input_sha256 is the SHA-256 of the
  // features document the script read on stdin, there being no data file).
  std::optional<provenance_record> provenance;
  // With keep_stderr, once the script ran (any verdict it reached): the diagnostics file's text.
  // Untrusted content, escaped: never put it in a message or anything passed on unreviewed.
  std::optional<std::string> stderr_diagnostics;
  double total_seconds = 0;
  scoring_phases phases;
  int stopped_by = 0;

  explicit operator bool() const noexcept { return outcome == verdict::success && stopped_by == 0; }
};

// Throws nothing; every failure is a result (a bad field is a usage_error naming it).
in_memory_result score_in_memory(const in_memory_request& request, const scoring_options& options = {});

}  // namespace plb::sandbox
