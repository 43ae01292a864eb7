// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox explain`: sandbox-score's flags, inputs and host checked as a run would, then the
// exact docker argv and the effective limits printed; nothing runs.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "runner/for_cli.hpp"
#include "score_flags.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

class explain_command final : public command {
 public:
  void add_flags(CLI::App& app) override {
    add_score_flags(app, flags_);
    app.add_flag("--json", json_, "print one JSON object (checks, limits, docker argv) instead of text");
  }

  int run(const run_context& context) override {
    const explanation e = explain(check_score_flags(flags_));
    context.cancel.check();
    if (json_) {
      std::cout << boost::json::serialize(explanation_json(e)) << std::endl;
      return 0;
    }
    for (const auto& line : explanation_lines(e)) std::cout << one_line(line) << "\n";
    return 0;
  }

 private:
  score_flags flags_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<command> make_explain_command() { return std::make_unique<explain_command>(); }

}  // namespace plb::cli
