// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox verify PROVENANCE`: a run's recorded digests and runtime checked, the run repeated
// and its predictions compared. One line per mismatch, then the result (never the script's output:
// every text is the tool's own, through one_line).
#include <cmath>
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "runner/for_cli.hpp"
#include "score_flags.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

class verify_command final : public command {
 public:
  void add_flags(CLI::App& v) override {
    options_.names = cli_field_names();
    v.add_option("PROVENANCE", options_.provenance_path, "the run's <predictions>.sandbox.json")->required();
    v.add_option("--output", options_.output,
                 "where the re-run's predictions go (must not exist; a missing directory is created 0700, as "
                 "sandbox-score's; default: <name>.verify-N.csv beside the original)");
    v.add_option("--model", options_.model_path, "the script, where it is not at the recorded path");
    v.add_option("--data", options_.data_path, "the data, where it is not at the recorded path");
    v.add_option("--bundle", options_.bundle_path,
                 "the model bundle, where it is not at the recorded path (a run given one only)");
    v.add_flag("--allow-changed-runtime", options_.allow_changed_runtime,
               "re-run even if the host's runsc release or platform differs (a changed model, data, bundle or image "
               "never)");
    v.add_flag("--json", json_, "print one JSON object on stdout");
  }

  int run(const run_context& context) override {
    sandbox::scoring_options scoring;
    scoring.stop = &context.stop;
    const verify_outcome out = verify_run(options_, scoring);
    for (const auto& p : out.problems)
      std::cerr << "plb-sandbox: verify: " << info(p.mismatch).name << ": " << one_line(p.message) << std::endl;
    return json_ ? print_json(out) : print_text(out);
  }

 private:
  static int print_json(const verify_outcome& out) {
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

  static int print_text(const verify_outcome& out) {
    // A mismatch was printed on its own line; nothing ran, so there is nothing more to say.
    if (!out.problems.empty() && out.result == info(out.problems.front().mismatch).name) return out.exit_code;
    std::ostream& stream = out.exit_code == 0 ? std::cout : std::cerr;
    stream << (out.exit_code == 0 ? "" : "plb-sandbox: ") << "verify: " << out.result << ": " << one_line(out.message)
           << std::endl;
    if (out.comparison && !out.comparison->identical)
      stream << "verify: " << out.comparison->differing_rows << " differing row(s), largest absolute difference "
             << out.comparison->max_abs_difference << std::endl;
    return out.exit_code;
  }

  verify_options options_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<command> make_verify_command() { return std::make_unique<verify_command>(); }

}  // namespace plb::cli
