// SPDX-License-Identifier: Apache-2.0
// One check of a scoring request, for the command line and the runner API alike: the same rules,
// with each field named as its caller knows it (a flag, or a field of scoring_request). The first
// problem is a failure(usage_error); nothing has run yet.
#pragma once

#include <string>

#include "plb/sandbox/runner.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

struct field_names {
  const char* model;
  const char* model_sha256;
  const char* runtime_image;
  const char* feature;
  const char* id_column;
  const char* task;  // e.g. "--task-type", or "task"
  const char* output;
  const char* provenance;
  std::string (*limit)(sandbox::limit_field);  // e.g. "--seconds", or "limits.wall_seconds"
};

// The runner API's names: scoring_request's fields.
field_names api_field_names() noexcept;

// The limits held to their bounds (the core's validate()): the first one outside is a
// failure(usage_error) naming it.
void check_limits(const sandbox::SandboxLimits& limits, const field_names& names);

// A task type that is one of the named values; an integer cast to the enum is a
// failure(usage_error) naming the field.
void check_task(sandbox::task_type task, const field_names& names);

// Checks everything that can be checked without reading a file or asking the daemon, and returns
// the request with its values parsed. `fresh_outputs` false skips the output paths' check (a batch
// plans lines whose outputs may already exist from an earlier run; each run checks them again).
score_request check_request(const sandbox::scoring_request& request, const field_names& names,
                            bool fresh_outputs = true);

}  // namespace plb::runner
