// SPDX-License-Identifier: Apache-2.0
// The in-memory API's request as the run's score_request: the same checks as check_request (one
// set of rules, under the in-memory fields' names), plus the caller's sizes, each bounded before
// anything is allocated or copied: the task type one of its named values, the limits, the script's
// bytes within limits.script_mib, rows, columns and their product (overflow-safe) within
// limits.input_values, the column names (given or default) within a CSV header's bound; then the
// values finite. The first problem is a failure(usage_error) naming the caller's field.
#pragma once

#include "plb/sandbox/runner.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

score_request check_in_memory_request(const sandbox::in_memory_request& request);

}  // namespace plb::runner
