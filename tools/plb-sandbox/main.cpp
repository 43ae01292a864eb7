// SPDX-License-Identifier: Apache-2.0
// plb-sandbox: scores an untrusted Python inference script inside gVisor. The commands are thin:
// sandbox-score is the runner API (plb/sandbox/runner.hpp) behind flags. Each verdict class
// leaves through one exit code and one line on stderr (see verdict.hpp).
#include <iostream>

#include <openssl/crypto.h>

#include <algorithm>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <boost/version.hpp>

#include "batch_command.hpp"
#include "support/cancellation.hpp"
#include "cli_commands.hpp"
#include "cli_signals.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"
#include "report_verify_commands.hpp"
#include "score_flags.hpp"
#include "runner/for_cli.hpp"
#include "warden_service.hpp"

namespace {

using plb::sandbox::verdict;

int report(verdict v, const std::string& message) {
  std::cerr << "plb-sandbox: " << plb::sandbox::name(v) << ": " << plb::one_line(message) << std::endl;
  return plb::sandbox::exit_code(v);
}

constexpr const char* footer =
    "The spec's command `plb sandbox-score` is this tool's `plb-sandbox sandbox-score`, with the same flags.\n"
    "Run it on a dedicated evaluation host. Exit codes, signals and limits: README.md; controls: SECURITY.md.";

struct cli_options {
  plb::cli::score_flags score, explain;
  plb::cli::batch_flags batch;
  bool json_summary = false, explain_json = false;
  std::string doctor_image;
  std::string warden_socket = plb::runner::warden_socket;
  bool warden_status = false;
  bool warden_supervise = false;
  plb::cli::report_verify_flags report_verify;
};

struct cli_commands {
  CLI::App *score, *explain, *doctor, *sweep, *batch, *warden;
};

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

cli_commands add_commands(CLI::App& app, cli_options& o) {
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");
  app.footer(footer);
  cli_commands c{};
  c.score = app.add_subcommand("sandbox-score", "run the script in gVisor on the --feature columns of --data");
  plb::cli::add_score_flags(*c.score, o.score);
  c.score->add_flag("--json", o.json_summary, "print one JSON summary on stdout (never the script's output)");
  c.score->footer(footer);
  c.explain = app.add_subcommand("explain",
                                 "check the sandbox-score flags, inputs and host, and print the exact "
                                 "docker argv and limits; runs nothing");
  plb::cli::add_score_flags(*c.explain, o.explain);
  c.explain->add_flag("--json", o.explain_json, "print one JSON object (checks, limits, docker argv) instead of text");
  c.doctor = app.add_subcommand("doctor", "check the host as the preflight does and print each requirement");
  c.doctor->add_option("--runtime-image", o.doctor_image,
                       "also check this reviewed image and prove runsc is gVisor with it");
  c.sweep = app.add_subcommand(
      "sweep", "remove the stopped containers and run directories of runs whose plb-sandbox process died");
  c.batch = app.add_subcommand(
      "batch", "score every line of a JSON Lines manifest, here (--jobs at once) or as a Slurm job array");
  plb::cli::add_batch_flags(*c.batch, o.batch);
  c.batch->footer(footer);
  c.warden = app.add_subcommand(
      "warden", "the host service that removes every run past its wall time + grace, whatever became of the tool");
  c.warden->add_option("--socket", o.warden_socket, "where it answers its status (the preflight asks the default)");
  c.warden->add_flag("--status", o.warden_status, "print the status line of the warden that answers, and exit");
  c.warden->add_flag("--supervise", o.warden_supervise,
                     "run as the warden's supervisor: start it, restart it whenever it dies, stop with it");
  plb::cli::add_report_verify_commands(app, o.report_verify, footer);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  plb::sandbox::stop_source stop;
  const plb::cancellation cancel(&stop);

  CLI::App app{"plb-sandbox: score an untrusted Python inference script inside gVisor", "plb-sandbox"};
  cli_options o;
  auto commands = add_commands(app, o);
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
  // The warden and its supervisor take their signals themselves (sigtimedwait in their loops): a
  // forwarding thread would race them for SIGTERM and the stop would be lost.
  if (!commands.warden->parsed()) plb::cli::forward_signals_to(stop);

  try {
    if (commands.score->parsed()) return plb::cli::run_sandbox_score(o.score, o.json_summary, stop);
    if (commands.explain->parsed()) return plb::cli::run_explain(o.explain, o.explain_json, cancel);
    if (commands.doctor->parsed()) return plb::cli::run_doctor(o.doctor_image, cancel);
    if (commands.sweep->parsed()) return plb::cli::run_sweep(cancel);
    if (commands.batch->parsed()) return plb::cli::run_batch(o.batch, stop);
    if (o.report_verify.report->parsed()) return plb::cli::run_report_command(o.report_verify.report_dir);
    if (o.report_verify.verify_command->parsed())
      return plb::cli::run_verify_command(o.report_verify.verify, o.report_verify.verify_json, stop);
    if (commands.warden->parsed())
      return o.warden_status      ? plb::cli::print_warden_status(o.warden_socket)
             : o.warden_supervise ? plb::cli::run_warden_supervisor(o.warden_socket)
                                  : plb::cli::run_warden(o.warden_socket);
  } catch (const plb::failure& f) {
    if (o.json_summary) {
      std::cout << boost::json::serialize(boost::json::object{{"verdict", plb::sandbox::name(f.verdict())},
                                                              {"exit_code", plb::sandbox::exit_code(f.verdict())},
                                                              {"message", plb::one_line(f.what())}})
                << std::endl;
    }
    return report(f.verdict(), f.what());
  } catch (const plb::interrupted& i) {
    plb::cli::report_stop_and_die(i.signal);
  } catch (const std::exception& e) {
    return report(verdict::internal_error, e.what());
  }
  return report(verdict::usage_error, "no command given");
}
