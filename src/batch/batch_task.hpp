// SPDX-License-Identifier: Apache-2.0
// --index I: one manifest line run by a task of a queued backend (batch_task.cpp says how).
#pragma once

#include <cstddef>

#include "batch/backend.hpp"

namespace plb::batch {

// Returns the process's exit code (0 once the line's record is written, or when resume keeps it).
int run_batch_task(const batch_config& config, const batch_plan& plan, std::size_t index,
                   const sandbox::stop_source& stop);

}  // namespace plb::batch
