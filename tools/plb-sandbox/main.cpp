// SPDX-License-Identifier: Apache-2.0
// plb-sandbox: scores an untrusted Python inference script inside gVisor. main builds the command
// line from the subcommand table (commands.cpp), parses it and runs the command given. Each verdict
// class leaves through one exit code and one line on stderr (see verdict.hpp).
#include <openssl/crypto.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/version.hpp>

#include "cli_signals.hpp"
#include "command.hpp"
#include "support/cancellation.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace {

using plb::sandbox::verdict;

int report(verdict v, const std::string& message) {
  std::cerr << "plb-sandbox: " << plb::sandbox::name(v) << ": " << plb::one_line(message) << std::endl;
  return plb::sandbox::exit_code(v);
}

// "plb-sandbox 0.1.0 (Boost 1.81.0, OpenSSL 3.0.x, GCC 12.2.0)": what an operator reports.
std::string version_text() {
  std::string boost = BOOST_LIB_VERSION;
  std::replace(boost.begin(), boost.end(), '_', '.');
  return std::string("plb-sandbox ") + PLB_SANDBOX_VERSION + " (Boost " + boost + ", " +
         ::OpenSSL_version(OPENSSL_VERSION) + ", " +
#if defined(__clang__)
         "clang " + __clang_version__ +
#else
         "GCC " + __VERSION__ +
#endif
         ")";
}

// One registered command on the command line: its row, its CLI11 subcommand, the command itself.
struct registered {
  const plb::cli::command_row* row;
  CLI::App* app;
  std::unique_ptr<plb::cli::command> command;
};

std::vector<registered> add_commands(CLI::App& app) {
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");
  app.footer(plb::cli::help_footer);
  std::vector<registered> out;
  for (const auto& row : plb::cli::commands()) {
    registered r{&row, app.add_subcommand(row.name, row.synopsis), row.make()};
    r.command->add_flags(*r.app);
    r.app->footer(plb::cli::help_footer);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  plb::sandbox::stop_source stop;
  const plb::cancellation cancel(&stop);

  CLI::App app{"plb-sandbox: score an untrusted Python inference script inside gVisor", "plb-sandbox"};
  std::vector<registered> commands = add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << std::flush;
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << version_text() << std::endl;
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All) << std::flush;
    return 0;
  } catch (const CLI::ParseError& e) {
    return report(verdict::usage_error, e.what());
  }
  const auto given =
      std::find_if(commands.begin(), commands.end(), [](const registered& r) { return r.app->parsed(); });
  if (given == commands.end()) return report(verdict::usage_error, "no command given");
  // Every terminating signal becomes a stop request from here on, unless the command takes its
  // signals itself (a signal thread would race it for them).
  if (!given->row->own_signals) plb::cli::forward_signals_to(stop);

  try {
    return given->command->run({stop, cancel});
  } catch (const plb::failure& f) {
    return report(f.verdict(), f.what());
  } catch (const plb::interrupted& i) {
    plb::cli::report_stop_and_die(i.signal);
  } catch (const std::exception& e) {
    return report(verdict::internal_error, e.what());
  }
}
