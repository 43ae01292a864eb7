// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox sandbox-score`: the spec's command, the runner API (plb/sandbox/runner.hpp) behind
// flags. A status line on a terminal while it runs; at the end one line, or with --json one JSON
// summary on stdout (never the script's output).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include <boost/json.hpp>

#include "cli_signals.hpp"
#include "command.hpp"
#include "score_flags.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

// "plb-sandbox: starting the sandbox", then "plb-sandbox: running in gVisor, 3.2 s of 30 s" (the
// script's own time against its wall limit), rewritten in place on a terminal; cleared at the end.
// Silent without a terminal.
class status_line {
 public:
  explicit status_line(bool enabled) : enabled_(enabled) {}
  ~status_line() {
    if (written_) (void)!::write(STDERR_FILENO, "\r\033[K", 4);
  }
  void show(const sandbox::scoring_progress& p) {
    if (!enabled_ || (!p.starting && p.elapsed_seconds < 1.0)) return;
    char line[128];
    const int n = p.starting && !p.stopping
                      ? std::snprintf(line, sizeof line, "\rplb-sandbox: starting the sandbox\033[K")
                      : std::snprintf(line, sizeof line, "\rplb-sandbox: %s, %.1f s of %.0f s\033[K",
                                      p.stopping ? "stopping the sandbox" : "running in gVisor", p.elapsed_seconds,
                                      p.wall_seconds);
    if (n > 0) written_ |= ::write(STDERR_FILENO, line, static_cast<std::size_t>(n)) > 0;
  }

 private:
  bool enabled_;
  bool written_ = false;
};

// --json: one summary object on stdout for automation, built only from the tool's own words,
// paths and numbers, like every message.
void print_json(const sandbox::scoring_result& r, bool keep_stderr) {
  namespace json = boost::json;
  json::object o;
  o["verdict"] = r.stopped_by ? "interrupted" : sandbox::name(r.outcome);
  o["exit_code"] = r.exit_code;
  o["message"] = r.message;
  o["predictions"] = r.predictions_path.empty() ? json::value(nullptr) : json::value(r.predictions_path);
  o["provenance"] = r.provenance_path.empty() ? json::value(nullptr) : json::value(r.provenance_path);
  // Where the diagnostics file is, only when asked for (never what it holds).
  if (keep_stderr) o["stderr_file"] = r.stderr_path.empty() ? json::value(nullptr) : json::value(r.stderr_path);
  o["total_seconds"] = static_cast<double>(std::llround(r.total_seconds * 1000)) / 1000;
  o["usage"] = r.usage ? json::value(sandbox::to_json(*r.usage)) : json::value(nullptr);
  const auto ms = [](double s) { return static_cast<double>(std::llround(s * 1e4)) / 1e4; };
  o["phases"] = json::object{{"preflight", ms(r.phases.preflight)},
                             {"start", ms(r.phases.start)},
                             {"run", ms(r.phases.run)},
                             {"cleanup", ms(r.phases.cleanup)},
                             {"publish", ms(r.phases.publish)}};
  std::cout << json::serialize(o) << std::endl;
}

// A run that could not start (a bad flag, a refused host) as --json reports it.
void print_json_failure(const failure& f) {
  std::cout << boost::json::serialize(boost::json::object{{"verdict", sandbox::name(f.verdict())},
                                                          {"exit_code", sandbox::exit_code(f.verdict())},
                                                          {"message", one_line(f.what())}})
            << std::endl;
}

class score_command final : public command {
 public:
  void add_flags(CLI::App& app) override {
    add_score_flags(app, flags_);
    app.add_flag("--json", json_, "print one JSON summary on stdout (never the script's output)");
  }

  int run(const run_context& context) override try { return run_score(context.stop); } catch (const failure& f) {
    if (json_) print_json_failure(f);
    throw;
  }

 private:
  int run_score(const sandbox::stop_source& stop) {
    // Built and checked once, under the flags' names: a bad value ends here as a failure naming its
    // flag, and whatever the run says later about a field names its flag too.
    const score_request request = check_score_flags(flags_);
    sandbox::scoring_result result;
    {
      status_line status(::isatty(STDERR_FILENO) == 1);
      sandbox::scoring_options options;
      options.stop = &stop;
      options.on_progress = [&status](const sandbox::scoring_progress& p) { status.show(p); };
      result = score_checked(request, options);
    }
    if (json_) print_json(result, flags_.keep_stderr);
    if (result.stopped_by) report_stop_and_die(result.stopped_by);
    if (!result) {
      std::cerr << "plb-sandbox: " << sandbox::name(result.outcome) << ": " << result.message << std::endl;
      if (!result.stderr_path.empty())  // its path only: the operator reads it, the tool never does
        std::cerr << "plb-sandbox: the script's stderr (operator only): " << result.stderr_path << std::endl;
      return result.exit_code;
    }
    if (!json_)
      std::cout << "predictions: " << result.predictions_path << "\nprovenance: " << result.provenance_path
                << (result.stderr_path.empty() ? "" : "\nstderr (operator only): ") << result.stderr_path << std::endl;
    return 0;
  }

  score_flags flags_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<command> make_score_command() { return std::make_unique<score_command>(); }

}  // namespace plb::cli
