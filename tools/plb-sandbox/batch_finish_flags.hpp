// SPDX-License-Identifier: Apache-2.0
// The flags of what a batch does at its end (batch_finish.hpp): --no-report and --verify.
#pragma once

#include <CLI/CLI.hpp>

#include "batch/batch_finish.hpp"

namespace plb::cli {

using batch::batch_finish_flags;  // what the end of a batch does: its report, and --verify

void add_batch_finish_flags(CLI::App& command, batch_finish_flags& flags);

}  // namespace plb::cli
