// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox doctor`: the host checked as the preflight checks it, one line per requirement.
#include <iostream>
#include <optional>

#include "command.hpp"
#include "runner/for_cli.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

using sandbox::verdict;

class doctor_command final : public command {
 public:
  void add_flags(CLI::App& app) override {
    app.add_option("--runtime-image", image_text_, "also check this reviewed image and prove runsc is gVisor with it");
  }

  int run(const run_context& context) override {
    std::optional<sandbox::image_id> image;
    if (!image_text_.empty()) {
      const auto parsed = sandbox::parse_image_id(image_text_);
      if (!parsed)
        fail(verdict::usage_error,
             "--runtime-image " + image_text_ + ": " + std::string(sandbox::message(parsed.error)));
      image = parsed.id;
    }
    const runner::doctor_report report = doctor(image, context.cancel);
    for (const auto& line : report.lines) std::cout << one_line(line) << "\n";
    std::cout << (report.ready ? "the host is ready" : "the host is not ready to score submissions") << std::endl;
    return report.ready ? 0 : sandbox::exit_code(verdict::host_refused);
  }

 private:
  std::string image_text_;
};

}  // namespace

std::unique_ptr<command> make_doctor_command() { return std::make_unique<doctor_command>(); }

}  // namespace plb::cli
