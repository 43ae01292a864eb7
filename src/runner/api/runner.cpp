// SPDX-License-Identifier: Apache-2.0
// plb::sandbox::score and score_in_memory: the runner API over the runner's units, the top room
// of the runner's ladder. Every failure becomes a result with the verdict's exit code and one
// clean line; nothing escapes as an exception.
#include "runner/api/runner.hpp"

#include <chrono>

#include "plb/sandbox/runner.hpp"
#include "runner/score/in_memory_request.hpp"
#include "runner/score/request_check.hpp"
#include "runner/score/score.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::runner {
namespace {

// Runs `body` (which fills `result` on success) and turns whatever it throws into `result`'s
// verdict, exit code and message: the one place both API calls catch.
template <typename Result, typename Body>
Result to_result(const char* success_message, Body&& body) {
  using sandbox::verdict;
  const auto started = std::chrono::steady_clock::now();
  Result result;
  run_report run;
  const auto finish = [&](verdict v, const std::string& message) {
    result.outcome = v;
    result.exit_code = sandbox::exit_code(v);
    result.message = one_line(message);
    result.usage = run.usage;
    result.phases = run.phases;
    // The diagnostics file, whatever the verdict: its path, or the in-memory API's text.
    if constexpr (requires { result.stderr_path; }) result.stderr_path = run.stderr_path;
    if constexpr (requires { result.stderr_diagnostics; })
      result.stderr_diagnostics = std::move(run.stderr_diagnostics);
    result.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };
  try {
    body(run, result);
    return finish(verdict::success, success_message);
  } catch (const failure& f) {
    return finish(f.verdict(), f.what());
  } catch (const interrupted& i) {
    result.stopped_by = i.signal;
    finish(verdict::internal_error, "stopped on request (" + std::to_string(i.signal) +
                                        "); any container and run directory were removed and nothing was published");
    result.exit_code = 128 + (i.signal > 0 ? i.signal : 0);
    return result;
  } catch (const std::exception& e) {
    return finish(verdict::internal_error, e.what());
  } catch (...) {
    return finish(verdict::internal_error, "unknown failure");
  }
}

// A file request's run, its outputs' paths into `result`.
void score_files(const score_request& checked, const run_hooks& hooks, run_report& run,
                 sandbox::scoring_result& result) {
  sandbox_score(checked, hooks, run);
  result.predictions_path = run.predictions_path;
  result.provenance_path = run.provenance_path;
}

}  // namespace

sandbox::scoring_result score_to_result(const sandbox::scoring_request& request, const run_hooks& hooks,
                                        const field_names& names) {
  return to_result<sandbox::scoring_result>("predictions and provenance written",
                                            [&](run_report& run, sandbox::scoring_result& result) {
                                              score_files(check_request(request, names), hooks, run, result);
                                            });
}

sandbox::scoring_result score_checked(const score_request& checked, const sandbox::scoring_options& options) {
  const run_hooks hooks{cancellation(options.stop), options.on_progress};
  return to_result<sandbox::scoring_result>(
      "predictions and provenance written",
      [&](run_report& run, sandbox::scoring_result& result) { score_files(checked, hooks, run, result); });
}

sandbox::in_memory_result score_in_memory_to_result(const sandbox::in_memory_request& request, const run_hooks& hooks) {
  return to_result<sandbox::in_memory_result>("predictions and provenance returned",
                                              [&](run_report& run, sandbox::in_memory_result& result) {
                                                const score_request checked = check_in_memory_request(request);
                                                sandbox_score(checked, hooks, run);
                                                result.predictions = std::move(run.predictions);
                                                result.provenance = std::move(run.provenance);
                                              });
}

}  // namespace plb::runner

namespace plb::sandbox {

scoring_result score(const scoring_request& request, const scoring_options& options) {
  return runner::score_to_result(request, runner::run_hooks{cancellation(options.stop), options.on_progress},
                                 runner::api_field_names());
}

in_memory_result score_in_memory(const in_memory_request& request, const scoring_options& options) {
  return runner::score_in_memory_to_result(request, runner::run_hooks{cancellation(options.stop), options.on_progress});
}

}  // namespace plb::sandbox
