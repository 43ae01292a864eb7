// SPDX-License-Identifier: Apache-2.0
#include "runner/score/script_outcome.hpp"

#include <algorithm>

#include "plb/sandbox/predictions_parser.hpp"
#include "plb/sandbox/stderr_diagnostics.hpp"
#include "runner/score/judge.hpp"
#include "runner/score/output_files.hpp"
#include "support/failure.hpp"

namespace plb::runner {

using sandbox::verdict;

text_position position_of(std::string_view text, std::size_t offset) noexcept {
  text_position p;
  const std::string_view before = text.substr(0, std::min(offset, text.size()));
  p.line += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t newline = before.rfind('\n');
  p.column = newline == std::string_view::npos ? before.size() + 1 : before.size() - newline;
  return p;
}

std::vector<double> parse_stdout(const std::string& stdout_bytes, const score_request& request, std::size_t rows,
                                 std::uint64_t output_cap) {
  std::vector<double> predictions;
  sandbox::predictions_options po;
  po.task = request.task;
  po.expected_rows = rows;
  po.max_bytes = output_cap;
  const auto parsed = sandbox::parse_predictions(stdout_bytes, po, predictions);
  if (!parsed) {
    const text_position at = position_of(stdout_bytes, parsed.offset);
    fail(verdict::output_rejected, "stdout rejected at byte " + std::to_string(parsed.offset) + " (line " +
                                       std::to_string(at.line) + ", column " + std::to_string(at.column) +
                                       "): " + std::string(sandbox::message(parsed.error)));
  }
  return predictions;
}

bool script_reached(verdict v) noexcept {
  switch (v) {
    case verdict::success:
    case verdict::timeout:
    case verdict::memory_exhausted:
    case verdict::output_cap_exceeded:
    case verdict::script_failed:
    case verdict::output_rejected: return true;
    default: return false;
  }
}

namespace {

// The failure's own verdict and words, with the file published beside it; a file that cannot be
// published is said in the tool's words, and the verdict stands.
[[noreturn]] void fail_keeping(const failure& f, const score_request& request, const std::string& text,
                               run_report& report) {
  if (!request.publish) {
    report.stderr_diagnostics = text;
    throw f;
  }
  try {
    publish_file(request.stderr_path, text);
    report.stderr_path = request.stderr_path;
  } catch (const failure& not_kept) {
    fail(f.verdict(), std::string(f.what()) + " (its diagnostics file was not written: " + not_kept.what() + ")");
  }
  throw f;
}

}  // namespace

std::vector<double> decide_keeping_diagnostics(const score_request& request, const docker_run_outcome& out,
                                               const std::string& started_at, run_report& report,
                                               const std::function<std::vector<double>()>& decide) {
  if (request.stderr_tail_bytes == 0 || !out.stderr_tail) return decide();
  const auto text = [&](verdict v) {
    return sandbox::render_diagnostics(*out.stderr_tail, sandbox::name(v), started_at);
  };
  try {
    std::vector<double> predictions = decide();
    report.stderr_diagnostics = text(verdict::success);  // published with the outputs, or returned
    return predictions;
  } catch (const failure& f) {
    if (!script_reached(f.verdict())) throw;
    fail_keeping(f, request, text(f.verdict()), report);
  }
}

std::vector<double> judged_predictions(const completed_run& done, const score_request& request, std::size_t rows,
                                       std::uint64_t output_cap, const std::string& started_at, run_report& report) {
  const docker_run_outcome& out = done.outcome;
  return decide_keeping_diagnostics(request, out, started_at, report, [&] {
    if (const auto v = judge(done, request.limits, output_cap)) fail(v->verdict, v->message);
    return parse_stdout(out.stdout_bytes, request, rows, output_cap);
  });
}

}  // namespace plb::runner
