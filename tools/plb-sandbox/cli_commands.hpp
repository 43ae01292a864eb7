// SPDX-License-Identifier: Apache-2.0
// The command line's commands other than sandbox-score, and what they print. Each returns the
// process's exit code or throws failure / interrupted like a run.
#pragma once

#include <string>

#include "support/cancellation.hpp"
#include "plb/sandbox/runner.hpp"
#include "score_flags.hpp"

namespace plb::cli {

int run_doctor(const std::string& image_text, const cancellation& cancel);
int run_sweep(const cancellation& cancel);
int run_explain(const score_flags& flags, bool json, const cancellation& cancel);  // json: one object on stdout

// sandbox-score through the runner: the status line on a terminal, one line or --json at the end.
int run_sandbox_score(const score_flags& flags, bool json_summary, const sandbox::stop_source& stop);

}  // namespace plb::cli
