// SPDX-License-Identifier: Apache-2.0
// The batch command as main calls it.
#pragma once

#include "batch_flags.hpp"
#include "plb/sandbox/runner.hpp"

namespace plb::cli {

// Returns the exit code: 0 when every line reached a verdict (the summary holds them),
// batch_incomplete_exit_code when some could not run; throws failure when the batch cannot start.
int run_batch(const batch_flags& flags, const sandbox::stop_source& stop);

}  // namespace plb::cli
