// plb-sandbox: scores an untrusted Python inference script inside gVisor.
// Each verdict class leaves through one exit code and one line on stderr (see verdict.hpp).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "failure.hpp"
#include "score.hpp"
#include "score_flags.hpp"
#include "sweep.hpp"

namespace {

using plb::sandbox::verdict;

int report(verdict v, const std::string& message) {
  std::cerr << "plb-sandbox: " << plb::sandbox::name(v) << ": " << message << std::endl;
  return plb::sandbox::exit_code(v);
}

// Dies by the signal that interrupted the run, as a shell expects (exit status 128 + signal).
[[noreturn]] void die_by(int signo) {
  ::signal(signo, SIG_DFL);
  ::raise(signo);
  std::_Exit(128 + signo);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"plb-sandbox: score an untrusted Python inference script inside gVisor", "plb-sandbox"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");

  plb::tool::score_flags score_flags;
  auto* score = app.add_subcommand("sandbox-score", "run the script in gVisor on the --feature columns of --data");
  plb::tool::add_score_flags(*score, score_flags);
  auto* sweep = app.add_subcommand(
      "sweep", "remove containers and run directories left by runs whose plb-sandbox process died");

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
    if (score->parsed()) {
      const auto request = plb::tool::check_score_flags(score_flags);
      const auto result = plb::tool::sandbox_score(request);
      std::cout << "predictions: " << result.predictions_path << "\n"
                << "provenance: " << result.provenance_path << std::endl;
      return 0;
    }
    if (sweep->parsed()) {
      const auto report = plb::tool::sweep_orphans(plb::tool::docker_engine{});
      for (const auto& c : report.removed_containers) std::cout << "removed container " << c << "\n";
      for (const auto& d : report.removed_directories) std::cout << "removed directory " << d << "\n";
      std::cout << report.live_runs << " run(s) still owned by a live plb-sandbox left alone" << std::endl;
      return 0;
    }
  } catch (const plb::tool::failure& f) {
    return report(f.verdict(), f.what());
  } catch (const plb::tool::interrupted& i) {
    report(verdict::internal_error, "interrupted by signal " + std::to_string(i.signal) + "; the container was removed");
    die_by(i.signal);
  } catch (const std::exception& e) {
    return report(verdict::internal_error, e.what());
  }
  return report(verdict::usage_error, "no command given");
}
