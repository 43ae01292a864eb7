// SPDX-License-Identifier: Apache-2.0
// What a finished run of the script amounts to: the judge's verdict, its stdout parsed as the
// predictions, and, when the operator asked for it (--keep-stderr), the diagnostics file of any
// verdict the script reached (plb/sandbox/stderr_diagnostics.hpp). The file never decides a
// verdict: it is written after the verdict is known, and a file that cannot be written leaves the
// verdict as it was (its message says so, in the tool's words).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/verdict.hpp"
#include "runner/container/container_run.hpp"
#include "runner/container/docker_run.hpp"
#include "runner/score/score.hpp"
#include "runner/score/score_request.hpp"

namespace plb::runner {

// Where in the script's stdout the parser stopped, as an operator looks for it: 1-based line and
// column (in bytes) of `offset`. Numbers only: never the bytes.
struct text_position {
  std::size_t line = 1, column = 1;
};
text_position position_of(std::string_view text, std::size_t offset) noexcept;

// The script's stdout as predictions, or failure(output_rejected) saying where (byte, line,
// column) and what the parser expected; never what the script wrote.
std::vector<double> parse_stdout(const std::string& stdout_bytes, const score_request& request, std::size_t rows,
                                 std::uint64_t output_cap);

// The verdicts the script itself reached (it ran, and its stderr may say why): the diagnostics
// file is kept for these and no other.
bool script_reached(sandbox::verdict v) noexcept;

// Runs `decide` (the judge, then the predictions' parse) and returns its predictions. With the
// diagnostics file asked for, the run's stderr tail is rendered for the verdict the script reached:
// a failure's file is published at once, alone (request.stderr_path; report.stderr_path says so),
// before the failure goes on; a success's waits in report.stderr_diagnostics to be published with
// the outputs. The in-memory API's stays in report.stderr_diagnostics either way.
std::vector<double> decide_keeping_diagnostics(const score_request& request, const docker_run_outcome& out,
                                               const std::string& started_at, run_report& report,
                                               const std::function<std::vector<double>()>& decide);

// The run's verdict (judge.hpp), then its predictions (parse_stdout), through
// decide_keeping_diagnostics: what sandbox_score does once the container is gone.
std::vector<double> judged_predictions(const completed_run& done, const score_request& request, std::size_t rows,
                                       std::uint64_t output_cap, const std::string& started_at, run_report& report);

}  // namespace plb::runner
