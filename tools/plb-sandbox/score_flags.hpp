// The sandbox-score flags, exactly the spec's plus --id-column, parsed by CLI11 and then checked
// by the core's parsers: a bad value is a usage error that names the flag.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/task_type.hpp"

namespace plb::tool {

struct score_flags {
  std::string model, model_sha256, runtime_image, data, task_type, output, id_column;
  std::vector<std::string> features;
  std::string seconds, memory_mb;
};

// What the flags mean once every value has been checked.
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

void add_score_flags(CLI::App& command, score_flags& flags);

// Throws failure(usage_error) naming the first bad flag.
score_request check_score_flags(const score_flags& flags);

}  // namespace plb::tool
