// SPDX-License-Identifier: Apache-2.0
// The report and verify commands: flags, and one line per fact on the way out (never the script's
// output: every text is the tool's own, through one_line).
#include <unistd.h>

#include <cmath>
#include <iostream>

#include <boost/json.hpp>

#include "batch/batch_report_io.hpp"
#include "support/one_line.hpp"
#include "report_verify_commands.hpp"

namespace plb::cli {

using batch::write_batch_report;

void add_report_verify_commands(CLI::App& app, report_verify_flags& f, const std::string& footer) {
  f.report = app.add_subcommand("report", "write DIR/batch-report.html from a batch's summary and provenance files");
  f.report->add_option("DIR", f.report_dir, "the batch's --output-dir")->required();
  f.report->footer(footer);
  auto* v = f.verify_command =
      app.add_subcommand("verify", "check a run's recorded digests and runtime, re-run it and compare its predictions");
  v->add_option("PROVENANCE", f.verify.provenance_path, "the run's <predictions>.sandbox.json")->required();
  v->add_option("--output", f.verify.output,
                "where the re-run's predictions go (must not exist; default: <name>.verify-N.csv beside the original)");
  v->add_option("--model", f.verify.model_path, "the script, where it is not at the recorded path");
  v->add_option("--data", f.verify.data_path, "the data, where it is not at the recorded path");
  v->add_flag("--allow-changed-runtime", f.verify.allow_changed_runtime,
              "re-run even if the host's runsc release or platform differs (a changed model, data or image never)");
  v->add_flag("--json", f.verify_json, "print one JSON object on stdout");
  v->footer(footer);
}

int run_report_command(const std::string& dir) {
  const std::string path = write_batch_report(dir);  // nothing printed before it is written
  std::cout << "report: " << path << std::endl;
  return 0;
}

int run_verify_command(const verify_options& options, bool json, const sandbox::stop_source& stop) {
  sandbox::scoring_options scoring;
  scoring.stop = &stop;
  const verify_outcome out = verify_run(options, scoring);
  for (const auto& p : out.problems)
    std::cerr << "plb-sandbox: verify: " << info(p.mismatch).name << ": " << one_line(p.message) << std::endl;
  if (json) {
    namespace js = boost::json;
    js::object o{{"result", out.result}, {"exit_code", out.exit_code}, {"message", one_line(out.message)}};
    o["predictions"] = out.predictions_path.empty() ? js::value(nullptr) : js::value(out.predictions_path);
    if (out.comparison) {
      o["rows"] = out.comparison->rows;
      o["differing_rows"] = out.comparison->differing_rows;
      const double d = out.comparison->max_abs_difference;
      o["max_abs_difference"] = std::isfinite(d) ? js::value(d) : js::value("inf");
    }
    std::cout << js::serialize(o) << std::endl;
    return out.exit_code;
  }
  // A mismatch was printed above, on its own line; nothing ran, so there is nothing more to say.
  if (!out.problems.empty() && out.result == info(out.problems.front().mismatch).name) return out.exit_code;
  std::ostream& stream = out.exit_code == 0 ? std::cout : std::cerr;
  stream << (out.exit_code == 0 ? "" : "plb-sandbox: ") << "verify: " << out.result << ": " << one_line(out.message)
         << std::endl;
  if (out.comparison && !out.comparison->identical)
    stream << "verify: " << out.comparison->differing_rows << " differing row(s), largest absolute difference "
           << out.comparison->max_abs_difference << std::endl;
  return out.exit_code;
}

}  // namespace plb::cli
