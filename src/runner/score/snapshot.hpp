// SPDX-License-Identifier: Apache-2.0
// The script snapshot: one bounded read of the operator's file, its SHA-256 compared in constant
// time with the digest the operator reviewed, and a fresh private copy (0400, owned by the sandbox
// user, in the run's 0700 directory) that becomes the container's only mount. The host never
// imports, parses or executes the script.
#pragma once

#include <cstdint>
#include <string>

#include "plb/sandbox/digest.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

// The script as read once, verified against the reviewed digest.
struct verified_script {
  std::string bytes;
  sandbox::sha256_digest digest;
};

struct script_snapshot {
  std::string path;  // the private copy
  sandbox::sha256_digest digest;
  std::size_t bytes = 0;
};

// The script at `model_path`, read once within `max_bytes` and verified against `expected`.
// Throws failure(input_refused) naming the model's or its digest's field as `names` call them.
verified_script read_script(const std::string& model_path, const sandbox::sha256_digest& expected,
                            std::size_t max_bytes, const field_names& names);

// The same check of a script already in memory (the in-memory API's script_bytes): its size
// within the limit and its SHA-256 the reviewed one, else failure(input_refused) naming `what`
// (and `names`' digest field).
verified_script verify_script(std::string bytes, const sandbox::sha256_digest& expected, std::size_t max_bytes,
                              const std::string& what, const field_names& names);

inline constexpr const char* snapshot_file_name = "model.py";

// Writes the private copy into the run directory, readable by the sandbox user (uid:gid) only.
script_snapshot write_snapshot(const verified_script& script, const run_directory& dir, std::uint32_t uid,
                               std::uint32_t gid);

}  // namespace plb::runner
