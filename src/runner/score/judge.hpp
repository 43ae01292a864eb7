// SPDX-License-Identifier: Apache-2.0
// The verdict of a finished sandbox run: a pure function of what was observed (the watchdog's
// outcome, the container's inspected state, whether cleanup was confirmed) and the limits. Only
// numbers and the tool's own words reach a message. Unit-tested case by case
// (tests/unit/runner/score/judge_test.cpp), including the verdicts no script can cause.
#pragma once

#include <optional>
#include <string>

#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/verdict.hpp"
#include "runner/container/container_run.hpp"

namespace plb::runner {

struct run_verdict {
  sandbox::verdict verdict;
  std::string message;
};

// nullopt: the script ran to a clean exit, and its stdout decides (success or output_rejected).
// `output_cap`: the run's output cap in bytes (sandbox::output_cap_bytes), output_mib's when not given.
std::optional<run_verdict> judge(const completed_run& done, const sandbox::SandboxLimits& limits,
                                 std::optional<std::uint64_t> output_cap = std::nullopt);

}  // namespace plb::runner
