// SPDX-License-Identifier: Apache-2.0
// sandbox-score end to end: preflight, snapshot, input, run, cleanup, verdict, outputs; and the
// same preparation for `explain`, which stops before anything runs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/runner.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/score/input_data.hpp"
#include "runner/score/score_request.hpp"
#include "runner/score/snapshot.hpp"
#include "support/cancellation.hpp"

namespace plb::runner {

// What a run leaves for the operator whatever its verdict: filled in as the run goes.
struct run_report {
  std::string predictions_path;  // set only when published
  std::string provenance_path;
  std::optional<sandbox::sandbox_usage> usage;  // set once the sandbox has run
  double total_seconds = 0;
  sandbox::scoring_phases phases;  // filled in as each phase ends
  // A request that does not publish (score_request::publish false) gets its outcome here instead.
  std::vector<double> predictions;
  std::optional<sandbox::provenance_record> provenance;
  // The operator's diagnostics file (--keep-stderr; script_outcome.hpp): its path once published,
  // or its text (the in-memory API's, and a success's until it is published with the outputs).
  std::string stderr_path;
  std::optional<std::string> stderr_diagnostics;
};

// Everything that needs no host: the script verified against its digest, the data read and the
// features document encoded within its limit.
struct prepared_inputs {
  verified_script script;
  input_data input;
  std::string document;
};

// The cheap, local checks of a request, made before anything starts (no reaper, CPU lease or
// docker client for a request that cannot run): the script read and verified against its digest
// within its size limit, and the data file opened as a regular file. Throws failure(input_refused).
verified_script check_local_inputs(const score_request& request);

// The rest: the data read and the features document encoded within its limit. `cancel` (may be
// null) is checked while the data is read.
prepared_inputs prepare_inputs(const score_request& request, verified_script script, const cancellation* cancel);

struct host_facts;

// What the caller hands a run besides its request.
struct run_hooks {
  cancellation cancel;
  std::function<void(const sandbox::scoring_progress&)> on_progress;  // may be empty
  // A batch's preflight, made once for many runs: with it, the run neither repeats the preflight
  // nor sweeps (the batch swept before its first run). Null: the run does both itself.
  const host_facts* host = nullptr;
  // Where the run happens, for its provenance ("ran_on"): a batch line's node and worker; empty
  // for sandbox-score, whose provenance then has no such field.
  std::string node = {}, worker = {};
};

// Throws failure with the verdict of any unsuccessful run, after removing its container, and
// `interrupted` once a stop request has been honoured (nothing published). The runner's API
// (api/runner.hpp) turns that into a result.
void sandbox_score(const score_request& request, const run_hooks& hooks, run_report& report);

// The policy a run of `request` gets, with its snapshot at `script_path`; a request with a bundle
// mounts the bundle cache's entry of its reviewed digest (bundle_cache.hpp). Throws
// failure(internal_error).
sandbox::sandbox_policy build_policy(const score_request& request, const std::string& script_path,
                                     const std::string& run_id, const std::string& cpuset = {});

}  // namespace plb::runner
