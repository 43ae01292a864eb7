// SPDX-License-Identifier: Apache-2.0
// What a finished run records: its usage as the sandbox's figures, and the provenance record of
// a success (its inputs' digests and paths, the host's runtime, the limits, the model bundle's
// snapshot when it had one), before the seal.
#pragma once

#include <optional>
#include <string>

#include "plb/sandbox/provenance.hpp"
#include "runner/container/container_run.hpp"
#include "runner/host/preflight.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "runner/score/score.hpp"

namespace plb::runner {

sandbox::sandbox_usage usage_of(const completed_run& done);

// `bundle`: the run's bundle snapshot, for a request with a bundle.
sandbox::provenance_record provenance_of(const score_request& request, const host_facts& host,
                                         const prepared_inputs& in, const sandbox::sha256_digest& model,
                                         const std::string& csv_text, const sandbox::sandbox_usage& usage,
                                         const std::string& cpuset, const run_hooks& hooks,
                                         const std::optional<bundle_snapshot>& bundle);

}  // namespace plb::runner
