// sandbox-score end to end: preflight, snapshot, input, run, cleanup, verdict, outputs.
#pragma once

#include <string>

#include "plb/sandbox/provenance.hpp"
#include "score_flags.hpp"

namespace plb::tool {

struct score_result {
  sandbox::provenance_record record;
  std::string predictions_path;
  std::string provenance_path;
};

// Thrown after cleanup when SIGINT or SIGTERM ended the run; main re-raises the signal.
struct interrupted {
  int signal;
};

// Throws failure with the verdict of any unsuccessful run, after removing its container.
score_result sandbox_score(const score_request& request);

}  // namespace plb::tool
