// plb-sandbox: scores an untrusted Python inference script inside gVisor. The commands are thin:
// sandbox-score is the runner API (plb/sandbox/runner.hpp) behind flags. Each verdict class
// leaves through one exit code and one line on stderr (see verdict.hpp).
#include <iostream>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cancellation.hpp"
#include "cli_commands.hpp"
#include "cli_signals.hpp"
#include "failure.hpp"
#include "one_line.hpp"
#include "score_flags.hpp"

namespace {

using plb::sandbox::verdict;

int report(verdict v, const std::string& message) {
  std::cerr << "plb-sandbox: " << plb::sandbox::name(v) << ": " << plb::tool::one_line(message) << std::endl;
  return plb::sandbox::exit_code(v);
}

constexpr const char* footer =
    "The spec's command `plb sandbox-score` is this tool's `plb-sandbox sandbox-score`, with the same flags.\n"
    "Run it on a dedicated evaluation host. Exit codes, signals and limits: README.md; controls: SECURITY.md.";

}  // namespace

int main(int argc, char** argv) {
  plb::sandbox::stop_source stop;
  plb::tool::forward_signals_to(stop);
  const plb::tool::cancellation cancel(&stop);

  CLI::App app{"plb-sandbox: score an untrusted Python inference script inside gVisor", "plb-sandbox"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");
  app.footer(footer);

  plb::tool::score_flags score_flags;
  bool json_summary = false;
  auto* score = app.add_subcommand("sandbox-score", "run the script in gVisor on the --feature columns of --data");
  plb::tool::add_score_flags(*score, score_flags);
  score->add_flag("--json", json_summary, "print one JSON summary on stdout (never the script's output)");
  score->footer(footer);

  plb::tool::score_flags explain_flags;
  auto* explain = app.add_subcommand("explain", "check the sandbox-score flags, inputs and host, and print the exact "
                                                "docker argv and limits; runs nothing");
  plb::tool::add_score_flags(*explain, explain_flags);
  bool explain_json = false;
  explain->add_flag("--json", explain_json, "print one JSON object (checks, limits, docker argv) instead of text");

  std::string doctor_image;
  auto* doctor = app.add_subcommand("doctor", "check the host as the preflight does and print each requirement");
  doctor->add_option("--runtime-image", doctor_image, "also check this reviewed image and prove runsc is gVisor with it");

  auto* sweep = app.add_subcommand(
      "sweep", "remove the stopped containers and run directories of runs whose plb-sandbox process died");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << std::flush;
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All) << std::flush;
    return 0;
  } catch (const CLI::ParseError& e) {
    return report(verdict::usage_error, e.what());
  }

  try {
    if (score->parsed()) return plb::tool::run_sandbox_score(score_flags, json_summary, stop);
    if (explain->parsed()) return plb::tool::run_explain(explain_flags, explain_json, cancel);
    if (doctor->parsed()) return plb::tool::run_doctor(doctor_image, cancel);
    if (sweep->parsed()) return plb::tool::run_sweep(cancel);
  } catch (const plb::tool::failure& f) {
    if (json_summary) {
      std::cout << boost::json::serialize(boost::json::object{{"verdict", plb::sandbox::name(f.verdict())},
                                                              {"exit_code", plb::sandbox::exit_code(f.verdict())},
                                                              {"message", plb::tool::one_line(f.what())}})
                << std::endl;
    }
    return report(f.verdict(), f.what());
  } catch (const plb::tool::interrupted& i) {
    std::cerr << "plb-sandbox: stopped by " << plb::tool::signal_name(i.signal)
              << "; any container and run directory were removed and nothing was published" << std::endl;
    plb::tool::die_by(i.signal);
  } catch (const std::exception& e) {
    return report(verdict::internal_error, e.what());
  }
  return report(verdict::usage_error, "no command given");
}
