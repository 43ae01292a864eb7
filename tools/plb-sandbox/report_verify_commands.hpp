// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox report DIR` and `plb-sandbox verify PROVENANCE`: their flags and what they print.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "plb/sandbox/runner.hpp"
#include "runner/for_cli.hpp"

namespace plb::cli {

struct report_verify_flags {
  std::string report_dir;
  verify_options verify;
  bool verify_json = false;
  CLI::App* report = nullptr;
  CLI::App* verify_command = nullptr;
};

void add_report_verify_commands(CLI::App& app, report_verify_flags& flags, const std::string& footer);

// Writes DIR/batch-report.html and prints its path.
int run_report_command(const std::string& dir);

// Prints each mismatch (one line each), then the result; returns its exit code.
int run_verify_command(const verify_options& options, bool json, const sandbox::stop_source& stop);

}  // namespace plb::cli
