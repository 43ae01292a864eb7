// SPDX-License-Identifier: Apache-2.0
// A queued backend's worker (`batch ... --worker`, what each of the worker tasks its submitter
// starts runs): one preflight and one gVisor proof for the worker, then up to --jobs runs at once,
// each on a line it claims (batch_claims.hpp) from the lines the submitter listed in queue/lines,
// until no line is left unclaimed and every line another worker holds has its record. A line whose
// claim the submitter hands back (its worker died) is taken again then. A node whose preflight
// fails takes no line: the worker reports why in queue/workers/<worker> and exits with
// host_refused.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "plb/sandbox/runner.hpp"

namespace plb::batch {

// The 0-based manifest indexes in queue/lines, one per line; nullopt when any is malformed, out of
// range or repeated.
std::optional<std::vector<std::size_t>> parse_line_list(const std::string& text, std::size_t lines);
std::string render_line_list(const std::vector<std::size_t>& indexes);

// Runs as `me` (its backend's identity()). Returns the process's exit code: 0 when no line is left
// to take, 128 + N when stopped by signal N. Throws failure(host_refused) when this node's
// preflight fails (after reporting it).
int run_batch_worker(const batch_config& config, const batch_plan& plan, worker_report me, unsigned jobs,
                     const sandbox::stop_source& stop);

}  // namespace plb::batch
