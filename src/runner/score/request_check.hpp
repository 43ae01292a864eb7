// SPDX-License-Identifier: Apache-2.0
// One check of a scoring request, for the command line and the runner API alike: the same rules,
// with each field named as its caller knows it (field_names: a flag, a field of scoring_request or
// a manifest's key). The first problem is a failure(usage_error); nothing has run yet. The checked
// request keeps the names, so that what the run says later names the caller's fields too.
#pragma once

#include <optional>
#include <string>

#include "plb/sandbox/runner.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

// The limits held to their bounds (the core's validate()): the first one outside is a
// failure(usage_error) naming it.
void check_limits(const sandbox::SandboxLimits& limits, const field_names& names);

// A task type that is one of the named values; an integer cast to the enum is a
// failure(usage_error) naming the field.
void check_task(sandbox::task_type task, const field_names& names);

// --keep-stderr's tail (stderr_diagnostics.hpp) in bytes; failure(usage_error) naming
// stderr_tail_kib outside its bounds.
std::size_t check_stderr_tail(std::uint64_t tail_kib);

// The bundle's two fields, both or neither: nullopt for neither, else the parsed digest; one
// without the other, or a digest that is not 64 hex digits, is a failure(usage_error) naming them.
std::optional<sandbox::sha256_digest> check_bundle(const std::string& bundle, const std::string& bundle_sha256,
                                                  const field_names& names);

// Checks everything that can be checked without reading a file or asking the daemon, and returns
// the request with its values parsed (and, with keep_stderr, the diagnostics file's fresh path). `fresh_outputs` false
// skips the output paths' check (a batch plans lines whose outputs may already exist from an earlier run; each run
// checks them again).
score_request check_request(const sandbox::scoring_request& request, const field_names& names,
                            bool fresh_outputs = true);

}  // namespace plb::runner
