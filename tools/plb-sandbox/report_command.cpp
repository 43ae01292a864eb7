// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox report DIR`: DIR/batch-report.html written from a batch's summary and provenance
// files, and its path printed once it is written.
#include <iostream>

#include "batch/batch_report_io.hpp"
#include "command.hpp"

namespace plb::cli {
namespace {

class report_command final : public command {
 public:
  void add_flags(CLI::App& app) override { app.add_option("DIR", dir_, "the batch's --output-dir")->required(); }

  int run(const run_context&) override {
    const std::string path = batch::write_batch_report(dir_);  // nothing printed before it is written
    std::cout << "report: " << path << std::endl;
    return 0;
  }

 private:
  std::string dir_;
};

}  // namespace

std::unique_ptr<command> make_report_command() { return std::make_unique<report_command>(); }

}  // namespace plb::cli
