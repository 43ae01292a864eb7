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

// Each field of a request as its caller knows it, for every message about one: a flag of the
// command line ("--data"), a field of the runner API's scoring_request ("data_path"), or a key of
// a batch's manifest ("data").
struct field_names {
  const char* model;
  const char* model_sha256;
  const char* runtime_image;
  const char* data;
  const char* feature;
  const char* id_column;
  const char* task;  // e.g. "--task-type", or "task"
  const char* output;
  const char* provenance;
  std::string (*limit)(sandbox::limit_field);  // e.g. "--seconds", or "limits.wall_seconds"
  const char* bundle;                          // "--bundle", "bundle_path", "bundle"
  const char* bundle_sha256;                   // "--bundle-sha256", "bundle_sha256"
};

// The runner API's names: scoring_request's fields.
field_names api_field_names() noexcept;

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
  field_names names = api_field_names();  // those it was checked under
  // The operator's diagnostics file (plb/sandbox/stderr_diagnostics.hpp), when asked for: the
  // tail's size (0: not asked, stderr is dropped unread) and, for a published request, its path
  // (checked fresh); the in-memory API's goes into the run's report instead.
  std::size_t stderr_tail_bytes = 0;
  std::string stderr_path;
  // A model bundle, when the request has one (both set, or neither): the directory as given and
  // its reviewed digest. Without one the run is exactly the one-mount run.
  std::string bundle = {};  // (initialized: a request spelled out without them needs neither)
  std::optional<sandbox::sha256_digest> bundle_sha256 = {};
  bool has_bundle() const noexcept { return bundle_sha256.has_value(); }
};

}  // namespace plb::runner
