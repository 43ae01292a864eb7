// plb-sandbox: scores an untrusted Python inference script inside gVisor.
// Each verdict class leaves through one exit code and one line on stderr (see verdict.hpp).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cancellation.hpp"
#include "failure.hpp"
#include "one_line.hpp"
#include "preflight.hpp"
#include "run_directory.hpp"
#include "run_id.hpp"
#include "score.hpp"
#include "score_flags.hpp"
#include "sweep.hpp"

namespace {

using plb::sandbox::verdict;

int report(verdict v, const std::string& message) {
  std::cerr << "plb-sandbox: " << plb::sandbox::name(v) << ": " << plb::tool::one_line(message) << std::endl;
  return plb::sandbox::exit_code(v);
}

// Every signal that would end the tool and that it can catch. They are blocked in every thread
// from the first line of main (children inherit the mask, so the docker client unblocks them
// again) and taken by one thread with sigwait, which only records a stop request: the command in
// progress then removes what it created and main re-raises the signal. SIGPIPE is ignored
// instead: a closed stderr must not end a run half-way; the run finishes and cleans up.
constexpr int terminating_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ};

sigset_t terminating_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : terminating_signals) sigaddset(&set, s);
  return set;
}

void forward_signals_to(plb::tool::cancellation& cancel) {
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t set = terminating_set();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([&cancel, set] {
    while (true) {
      int signo = 0;
      if (::sigwait(&set, &signo) == 0) cancel.request(signo);
    }
  }).detach();
}

// Dies by the signal that stopped the command, as a shell expects (exit status 128 + signal).
[[noreturn]] void die_by(int signo) {
  ::signal(signo, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signo);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
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

int doctor(const std::string& image_text, const plb::tool::cancellation& cancel) {
  std::optional<plb::sandbox::image_id> image;
  if (!image_text.empty()) {
    const auto parsed = plb::sandbox::parse_image_id(image_text);
    if (!parsed)
      return report(verdict::usage_error, "--runtime-image " + image_text + ": " + std::string(plb::sandbox::message(parsed.error)));
    image = parsed.id;
  }
  plb::tool::host_facts facts;
  std::vector<plb::tool::check_result> checks;
  if (const auto unsafe = plb::tool::check_state_dirs(true)) {
    // No run directory can be made safely: report what the checks can say without one.
    checks = plb::tool::inspect_host(plb::tool::docker_engine{}, std::nullopt, plb::sandbox::SandboxLimits{},
                                     plb::tool::runs_dir, &cancel, false, false, facts);
  } else {
    plb::tool::run_directory dir(plb::tool::new_run_id());
    checks = plb::tool::inspect_host(plb::tool::docker_engine{}, image, plb::sandbox::SandboxLimits{},
                                     dir.docker_config_dir(), &cancel, false, true, facts);
  }
  cancel.check();
  bool failed = false;
  std::cout << std::left << std::setw(22) << "requirement" << std::setw(8) << "result" << "detail\n";
  for (const auto& c : checks) {
    const char* mark = c.status == plb::tool::check_status::pass   ? "pass"
                       : c.status == plb::tool::check_status::fail ? "FAIL"
                                                                   : "skip";
    failed |= c.status == plb::tool::check_status::fail;
    std::cout << std::setw(22) << c.requirement << std::setw(8) << mark << plb::tool::one_line(c.detail) << "\n";
    if (!c.fix.empty()) std::cout << std::setw(30) << "" << "fix: " << plb::tool::one_line(c.fix) << "\n";
  }
  std::cout << (failed ? "the host is not ready to score submissions" : "the host is ready") << std::endl;
  return failed ? plb::sandbox::exit_code(verdict::host_refused) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  plb::tool::cancellation cancel;
  forward_signals_to(cancel);

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
    if (json_summary) print_json(v, plb::tool::one_line(message), run);
    return v == verdict::success ? 0 : report(v, message);
  };
  try {
    if (score->parsed()) {
      const auto request = plb::tool::check_score_flags(score_flags);
      plb::tool::sandbox_score(request, ::isatty(STDERR_FILENO) == 1, cancel, run);
      if (!json_summary)
        std::cout << "predictions: " << run.predictions_path << "\n"
                  << "provenance: " << run.provenance_path << std::endl;
      return finish(verdict::success, "predictions and provenance written");
    }
    if (explain->parsed()) {
      const auto lines = plb::tool::explain(plb::tool::check_score_flags(explain_flags));
      cancel.check();
      for (const auto& line : lines) std::cout << plb::tool::one_line(line) << "\n";
      return 0;
    }
    if (doctor_cmd->parsed()) return doctor(doctor_image, cancel);
    if (sweep->parsed()) {
      const auto swept = plb::tool::sweep_orphans(plb::tool::docker_engine{});
      for (const auto& c : swept.removed_containers) std::cout << "removed container " << plb::tool::one_line(c) << "\n";
      for (const auto& d : swept.removed_directories) std::cout << "removed directory " << d << "\n";
      for (const auto& c : swept.not_ours)
        std::cout << "not ours, left alone: container " << plb::tool::one_line(c)
                  << " (carries the run label, but plb-sandbox has no record of creating it)\n";
      std::cout << swept.live_runs << " run(s) of a live plb-sandbox left alone" << std::endl;
      cancel.check();
      return 0;
    }
  } catch (const plb::tool::failure& f) {
    return finish(f.verdict(), f.what());
  } catch (const plb::tool::interrupted& i) {
    const char* abbrev = ::sigabbrev_np(i.signal);
    const std::string message = std::string("stopped by SIG") + (abbrev ? abbrev : "?") + " (" + std::to_string(i.signal) +
                                "); any container and run directory were removed and nothing was published";
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
