// SPDX-License-Identifier: Apache-2.0
// A scoring request once every value has been checked and parsed (request_check.hpp makes one
// from the runner API's scoring_request, whatever its caller).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"
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
  // The in-memory API (runner.hpp's score_in_memory) runs through the same code with these set:
  // the script's bytes instead of reading `model`, the features instead of reading `data`, and
  // nothing published (the run's report holds the predictions and the provenance instead).
  std::optional<std::string> script_bytes;
  std::shared_ptr<const sandbox::feature_table> table;
  bool publish = true;
};

}  // namespace plb::runner
