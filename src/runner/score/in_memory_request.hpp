// SPDX-License-Identifier: Apache-2.0
// The in-memory API's request as the run's score_request: the same checks as check_request (one
// set of rules, under the in-memory fields' names), plus the matrix's own: its shape, finite
// values and size within limits.input_values. The first problem is a failure(usage_error), or
// input_refused for a matrix over the input limit, as a CSV over it would be.
#pragma once

#include "plb/sandbox/runner.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

score_request check_in_memory_request(const sandbox::in_memory_request& request);

}  // namespace plb::runner
