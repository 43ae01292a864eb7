// A scoring request once every value has been checked and parsed (request_check.hpp makes one
// from the runner API's scoring_request, whatever its caller).
#pragma once

#include <string>
#include <vector>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/task_type.hpp"

namespace plb::runner {

struct score_request {
  std::string model;
  sandbox::sha256_digest model_sha256;
  sandbox::image_id image;
  std::string data;
  std::vector<std::string> features;
  std::string id_column;
  sandbox::task_type task = sandbox::task_type::regression;
  sandbox::SandboxLimits limits;
  std::string output;
  std::string provenance;
};

}  // namespace plb::runner
