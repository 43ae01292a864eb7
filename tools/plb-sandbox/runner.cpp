// plb::sandbox::score: the runner API over the tool's units. Every failure becomes a result with
// the verdict's exit code and one clean line; nothing escapes as an exception.
#include "plb/sandbox/runner.hpp"

#include <chrono>

#include "failure.hpp"
#include "one_line.hpp"
#include "request_check.hpp"
#include "score.hpp"

namespace plb::sandbox {

scoring_result score(const scoring_request& request, const scoring_options& options) {
  const auto started = std::chrono::steady_clock::now();
  scoring_result result;
  tool::run_report run;
  const auto finish = [&](verdict v, const std::string& message) {
    result.outcome = v;
    result.exit_code = exit_code(v);
    result.message = tool::one_line(message);
    result.usage = run.usage;
    result.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };
  try {
    const tool::score_request checked = tool::check_request(request, tool::api_field_names());
    tool::run_hooks hooks{tool::cancellation(options.stop), options.on_progress};
    tool::sandbox_score(checked, hooks, run);
    result.predictions_path = run.predictions_path;
    result.provenance_path = run.provenance_path;
    return finish(verdict::success, "predictions and provenance written");
  } catch (const tool::failure& f) {
    return finish(f.verdict(), f.what());
  } catch (const tool::interrupted& i) {
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

}  // namespace plb::sandbox
