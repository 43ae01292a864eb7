// SPDX-License-Identifier: Apache-2.0
// `explain`: everything a sandbox-score with these flags would do, checked as far as it can be
// without starting anything (the script digest, the data, the limits, the host, with the gVisor
// proof only from the cache), and the exact docker argv. Rendered as text for people and as JSON
// for scripts (ci/bench/bench-e2e reads the argv from it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "plb/sandbox/bundle_listing.hpp"
#include "runner/host/preflight.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

struct explanation {
  score_request request;
  std::size_t script_bytes = 0;
  std::string script_sha256;
  std::size_t rows = 0, columns = 0, stdin_bytes = 0;
  std::vector<check_result> checks;
  std::vector<std::string> argv;  // the docker binary first; zeros where each run's ID goes
  // A request with a model bundle: the bundle as the walk found it (nothing copied), its digest
  // the reviewed one.
  std::optional<sandbox::bundle_listing> bundle;
};

// Throws failure like a run (input_refused, host_refused when a host check fails).
explanation explain(const score_request& request);

std::vector<std::string> explanation_lines(const explanation& e);
boost::json::object explanation_json(const explanation& e);

}  // namespace plb::runner
