// SPDX-License-Identifier: Apache-2.0
// Where and when a batch ran, as its summary and report show it.
#pragma once

#include <string>

#include "batch/batch.hpp"

namespace plb::batch {

// This host as a worker no scheduler named: worker "local", node this host's name ("unknown" when
// it is not a safe name). The local backend's identity, and a queued backend's outside its
// scheduler.
worker_report local_worker();

// Now, UTC, ISO 8601 to the second: "2026-12-01T10:55:00Z".
std::string utc_timestamp();

}  // namespace plb::batch
