// The flags of what a batch does at its end (batch_finish.hpp): --no-report and --verify.
#pragma once

#include <CLI/CLI.hpp>

#include "batch_finish.hpp"

namespace plb::tool {

void add_batch_finish_flags(CLI::App& command, batch_finish_flags& flags);

}  // namespace plb::tool
