// SPDX-License-Identifier: Apache-2.0
// The sandbox-score flags, exactly the spec's plus --id-column, parsed by CLI11 into the runner's
// request; request_check.hpp then checks every value, naming the flag.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "plb/sandbox/runner.hpp"
#include "runner/for_cli.hpp"

namespace plb::cli {

struct score_flags {
  std::string model, model_sha256, runtime_image, data, task_type, output, id_column;
  std::vector<std::string> features;
  std::string seconds, memory_mb;
  std::string bundle, bundle_sha256;  // both or neither: a model bundle and its reviewed digest
  bool keep_stderr = false;               // the operator's diagnostics file, <output>.stderr (off: the spec's run)
  CLI::Option* seconds_option = nullptr;  // to tell an empty value from no flag at all
  CLI::Option* memory_option = nullptr;
};

void add_score_flags(CLI::App& command, score_flags& flags);

// A flag given once per value (`--feature a --feature b`): `--feature a b` leaves b over, which is
// a usage error, never a second value.
CLI::Option* add_repeatable(CLI::App& command, const std::string& name, std::vector<std::string>& values,
                            const std::string& description);

// A limit flag's value; the limit's default when the flag was not given, and failure(usage_error)
// naming the flag for anything else than a whole number within the bounds (an empty value too).
std::uint64_t parse_limit_flag(const char* flag, sandbox::limit_field f, const std::string& text,
                               const CLI::Option* option);

// --keep-stderr's help, naming where `file` goes (sandbox-score's and batch's).
std::string keep_stderr_help(const std::string& file);

// The runner's request from the flags; throws failure(usage_error) naming the first bad flag.
sandbox::scoring_request request_from_flags(const score_flags& flags);

// request_from_flags, then every check, with flags' names in the messages; the checked request
// keeps them for the run's own messages (score_checked).
score_request check_score_flags(const score_flags& flags);

// The flags' names, for the runner's messages about them (score_request.hpp's field_names).
const field_names& cli_field_names() noexcept;

}  // namespace plb::cli
