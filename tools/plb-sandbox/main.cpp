// plb-sandbox: scores an untrusted Python inference script inside gVisor.
// Each verdict class leaves through one exit code and one line on stderr (see verdict.hpp).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "failure.hpp"
#include "preflight.hpp"
#include "run_id.hpp"
#include "score.hpp"
#include "score_flags.hpp"
#include "sweep.hpp"
#include "workspace.hpp"

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

// --json: one summary object on stdout for automation. Built only from the tool's own words,
// paths and numbers, like every message.
void print_json(verdict v, const std::string& message, const plb::tool::run_report& r) {
  namespace json = boost::json;
  json::object o;
  o["verdict"] = plb::sandbox::name(v);
  o["exit_code"] = plb::sandbox::exit_code(v);
  o["message"] = message;
  o["predictions"] = r.predictions_path.empty() ? json::value(nullptr) : json::value(r.predictions_path);
  o["provenance"] = r.provenance_path.empty() ? json::value(nullptr) : json::value(r.provenance_path);
  o["total_seconds"] = static_cast<double>(static_cast<long long>(r.total_seconds * 1000 + 0.5)) / 1000;
  o["usage"] = r.usage ? json::value(plb::sandbox::to_json(*r.usage)) : json::value(nullptr);
  std::cout << json::serialize(o) << std::endl;
}

int doctor(const std::string& image_text) {
  std::optional<plb::sandbox::image_id> image;
  if (!image_text.empty()) {
    const auto parsed = plb::sandbox::parse_image_id(image_text);
    if (!parsed)
      return report(verdict::usage_error, "--runtime-image " + image_text + ": " + std::string(plb::sandbox::message(parsed.error)));
    image = parsed.id;
  }
  plb::tool::workspace ws(plb::tool::new_run_id());
  plb::tool::host_facts facts;
  const auto checks = plb::tool::inspect_host(plb::tool::docker_engine{}, image, plb::sandbox::SandboxLimits{},
                                              ws.docker_config_dir(), false, true, facts);
  bool failed = false;
  std::cout << std::left << std::setw(22) << "requirement" << std::setw(8) << "result" << "detail\n";
  for (const auto& c : checks) {
    const char* mark = c.status == plb::tool::check_status::pass   ? "pass"
                       : c.status == plb::tool::check_status::fail ? "FAIL"
                                                                   : "skip";
    failed |= c.status == plb::tool::check_status::fail;
    std::cout << std::setw(22) << c.requirement << std::setw(8) << mark << c.detail << "\n";
    if (!c.fix.empty()) std::cout << std::setw(30) << "" << "fix: " << c.fix << "\n";
  }
  std::cout << (failed ? "the host is not ready to score submissions" : "the host is ready") << std::endl;
  return failed ? plb::sandbox::exit_code(verdict::host_refused) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"plb-sandbox: score an untrusted Python inference script inside gVisor", "plb-sandbox"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every command");

  plb::tool::score_flags score_flags;
  bool json_summary = false;
  auto* score = app.add_subcommand("sandbox-score", "run the script in gVisor on the --feature columns of --data");
  plb::tool::add_score_flags(*score, score_flags);
  score->add_flag("--json", json_summary, "print one JSON summary on stdout (never the script's output)");

  plb::tool::score_flags explain_flags;
  auto* explain = app.add_subcommand("explain", "check the sandbox-score flags, inputs and host, and print the exact "
                                                "docker argv and limits; runs nothing");
  plb::tool::add_score_flags(*explain, explain_flags);

  std::string doctor_image;
  auto* doctor_cmd = app.add_subcommand("doctor", "check the host as the preflight does and print each requirement");
  doctor_cmd->add_option("--runtime-image", doctor_image, "also check this reviewed image and prove runsc is gVisor with it");

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

  const auto started = std::chrono::steady_clock::now();
  plb::tool::run_report run;
  auto finish = [&](verdict v, const std::string& message) {
    run.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (json_summary) print_json(v, message, run);
    return v == verdict::success ? 0 : report(v, message);
  };
  try {
    if (score->parsed()) {
      const auto request = plb::tool::check_score_flags(score_flags);
      plb::tool::sandbox_score(request, ::isatty(STDERR_FILENO) == 1, run);
      if (!json_summary)
        std::cout << "predictions: " << run.predictions_path << "\n"
                  << "provenance: " << run.provenance_path << std::endl;
      return finish(verdict::success, "predictions and provenance written");
    }
    if (explain->parsed()) {
      for (const auto& line : plb::tool::explain(plb::tool::check_score_flags(explain_flags))) std::cout << line << "\n";
      return 0;
    }
    if (doctor_cmd->parsed()) return doctor(doctor_image);
    if (sweep->parsed()) {
      const auto swept = plb::tool::sweep_orphans(plb::tool::docker_engine{});
      for (const auto& c : swept.removed_containers) std::cout << "removed container " << c << "\n";
      for (const auto& d : swept.removed_directories) std::cout << "removed directory " << d << "\n";
      std::cout << swept.live_runs << " run(s) still owned by a live plb-sandbox left alone" << std::endl;
      return 0;
    }
  } catch (const plb::tool::failure& f) {
    return finish(f.verdict(), f.what());
  } catch (const plb::tool::interrupted& i) {
    const std::string message = "interrupted by signal " + std::to_string(i.signal) + "; the container was removed";
    if (json_summary)
      std::cout << boost::json::serialize(boost::json::object{{"verdict", "interrupted"},
                                                              {"exit_code", 128 + i.signal},
                                                              {"message", message}})
                << std::endl;
    std::cerr << "plb-sandbox: " << message << std::endl;
    die_by(i.signal);
  } catch (const std::exception& e) {
    return finish(verdict::internal_error, e.what());
  }
  return report(verdict::usage_error, "no command given");
}
