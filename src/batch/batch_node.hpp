// SPDX-License-Identifier: Apache-2.0
// Where and when a batch ran, as its summary and report show it.
#pragma once

#include <string>

namespace plb::batch {

// The node that runs this process: Slurm's $SLURMD_NODENAME in a task, else the host name; only
// [A-Za-z0-9._-], at most 64 bytes ("" when neither is one).
std::string node_name();

// Now, UTC, ISO 8601 to the second: "2026-12-01T10:55:00Z".
std::string utc_timestamp();

}  // namespace plb::batch
