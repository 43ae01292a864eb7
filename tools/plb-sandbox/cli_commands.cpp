// SPDX-License-Identifier: Apache-2.0
#include "cli_commands.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include <boost/json.hpp>

#include "cli_signals.hpp"
#include "runner/for_cli.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

using sandbox::verdict;

// "plb-sandbox: running in gVisor, 3.2 s of 30 s", rewritten in place on a terminal; cleared at
// the end. Silent without a terminal.
class status_line {
 public:
  explicit status_line(bool enabled) : enabled_(enabled) {}
  ~status_line() {
    if (written_) (void)!::write(STDERR_FILENO, "\r\033[K", 4);
  }
  void show(const sandbox::scoring_progress& p) {
    if (!enabled_ || p.elapsed_seconds < 1.0) return;
    char line[128];
    const int n =
        std::snprintf(line, sizeof line, "\rplb-sandbox: %s, %.1f s of %.0f s\033[K",
                      p.stopping ? "stopping the sandbox" : "running in gVisor", p.elapsed_seconds, p.wall_seconds);
    if (n > 0) written_ |= ::write(STDERR_FILENO, line, static_cast<std::size_t>(n)) > 0;
  }

 private:
  bool enabled_;
  bool written_ = false;
};

// --json: one summary object on stdout for automation, built only from the tool's own words,
// paths and numbers, like every message.
void print_json(const sandbox::scoring_result& r) {
  namespace json = boost::json;
  json::object o;
  o["verdict"] = r.stopped_by ? "interrupted" : sandbox::name(r.outcome);
  o["exit_code"] = r.exit_code;
  o["message"] = r.message;
  o["predictions"] = r.predictions_path.empty() ? json::value(nullptr) : json::value(r.predictions_path);
  o["provenance"] = r.provenance_path.empty() ? json::value(nullptr) : json::value(r.provenance_path);
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

}  // namespace

int run_doctor(const std::string& image_text, const cancellation& cancel) {
  std::optional<sandbox::image_id> image;
  if (!image_text.empty()) {
    const auto parsed = sandbox::parse_image_id(image_text);
    if (!parsed)
      fail(verdict::usage_error, "--runtime-image " + image_text + ": " + std::string(sandbox::message(parsed.error)));
    image = parsed.id;
  }
  const runner::doctor_report report = doctor(image, cancel);
  for (const auto& line : report.lines) std::cout << one_line(line) << "\n";
  std::cout << (report.ready ? "the host is ready" : "the host is not ready to score submissions") << std::endl;
  return report.ready ? 0 : sandbox::exit_code(verdict::host_refused);
}

int run_sweep(const cancellation& cancel) {
  const auto swept = sweep_orphans(docker_engine{});
  for (const auto& c : swept.removed_containers) std::cout << "removed container " << one_line(c) << "\n";
  for (const auto& d : swept.removed_directories) std::cout << "removed directory " << d << "\n";
  for (const auto& c : swept.not_ours)
    std::cout << "not ours, left alone: container " << one_line(c)
              << " (carries the run label, but plb-sandbox has no record of creating it)\n";
  if (swept.left_out > 0)
    std::cout << swept.left_out << " more labelled container(s) past the list's bound of "
              << runner::max_listed_containers
              << " (the tool's own, the first due, come first): sweep again once these are gone\n";
  std::cout << swept.live_runs << " run(s) of a live plb-sandbox left alone" << std::endl;
  cancel.check();
  return 0;
}

int run_explain(const score_flags& flags, bool json, const cancellation& cancel) {
  const explanation e = explain(check_score_flags(flags));
  cancel.check();
  if (json) {
    std::cout << boost::json::serialize(explanation_json(e)) << std::endl;
    return 0;
  }
  for (const auto& line : explanation_lines(e)) std::cout << one_line(line) << "\n";
  return 0;
}

int run_sandbox_score(const score_flags& flags, bool json_summary, const sandbox::stop_source& stop) {
  // The flags are checked here first, so a bad value is named by its flag; the runner checks the
  // same rules again under its field names.
  check_score_flags(flags);
  sandbox::scoring_result result;
  {
    status_line status(::isatty(STDERR_FILENO) == 1);
    sandbox::scoring_options options;
    options.stop = &stop;
    options.on_progress = [&status](const sandbox::scoring_progress& p) { status.show(p); };
    result = sandbox::score(request_from_flags(flags), options);
  }
  if (json_summary) print_json(result);
  if (result.stopped_by) {
    report_stop_and_die(result.stopped_by);
  }
  if (!result) {
    std::cerr << "plb-sandbox: " << sandbox::name(result.outcome) << ": " << result.message << std::endl;
    return result.exit_code;
  }
  if (!json_summary)
    std::cout << "predictions: " << result.predictions_path << "\nprovenance: " << result.provenance_path << std::endl;
  return 0;
}

}  // namespace plb::cli
