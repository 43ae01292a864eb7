// SPDX-License-Identifier: Apache-2.0
// The runner's API, the top room of the runner: sandbox_score (score/score.hpp) with every
// failure caught and turned into the API's result. plb::sandbox::score and score_in_memory
// (plb/sandbox/runner.hpp) are these with the caller's options; a batch line runs through
// score_to_result with the batch's preflight in its hooks (runner/for_batch.hpp).
#pragma once

#include "plb/sandbox/runner.hpp"
#include "runner/score/score.hpp"

namespace plb::runner {

// sandbox_score's outcome as the runner API's result: every failure caught, `request` checked
// (fresh outputs included) under `names`, which every later message uses too.
sandbox::scoring_result score_to_result(const sandbox::scoring_request& request, const run_hooks& hooks,
                                        const field_names& names);

// The same for a request its caller has already checked under its own names (the command line's
// flags, by check_request): it is not checked again.
sandbox::scoring_result score_checked(const score_request& checked, const sandbox::scoring_options& options);

// The same for the in-memory API: `request` checked (the same rules, and the matrix's shape,
// values and size), run by sandbox_score without publishing, the predictions returned.
sandbox::in_memory_result score_in_memory_to_result(const sandbox::in_memory_request& request, const run_hooks& hooks);

}  // namespace plb::runner
