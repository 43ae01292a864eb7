// The host checks about the machine and its daemon (the table is in host_checks.cpp).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "runner/host/docker_cli_context.hpp"
#include "runner/container/docker_run.hpp"
#include "runner/host/host_check_steps.hpp"
#include "runner/host/state_dirs.hpp"
#include "runner/host/warden.hpp"

namespace plb::runner::checks {
namespace {

std::optional<refusal> state_directories(check_context&, std::string& detail) {
  if (auto p = check_state_dirs(true)) return refusal{p->detail, p->fix};
  detail = std::string(state_dir) + ", " + runs_dir + ", " + cache_dir + ": root's, writable by root only";
  return std::nullopt;
}

std::optional<refusal> local_daemon_only(check_context&, std::string& detail) {
  const std::string local = std::string("unix://") + docker_socket;
  if (const char* h = std::getenv("DOCKER_HOST"); h && *h && local != h)
    return refusal{std::string("DOCKER_HOST is set to ") + h + ", but plb-sandbox only uses " + local,
                   "unset DOCKER_HOST"};
  if (const char* x = std::getenv("DOCKER_CONTEXT"); x && *x && std::string(x) != "default")
    return refusal{std::string("DOCKER_CONTEXT is set to ") + x + ", but plb-sandbox only uses the local daemon",
                   "unset DOCKER_CONTEXT"};
  const cli_context ctx = current_cli_context();
  if (!ctx.problem.empty()) return refusal{ctx.problem, "fix or remove it (plb-sandbox reads only its currentContext)"};
  if (!ctx.name.empty() && ctx.name != "default")
    return refusal{"the docker CLI's current context is " + ctx.name + ", but plb-sandbox only uses the local daemon",
                   "run `docker context use default`"};
  detail = local;
  return std::nullopt;
}

std::optional<refusal> daemon_socket(check_context& c, std::string& detail) {
  struct stat st {};
  const std::string& path = c.what.engine.socket_path();
  if (::stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return refusal{"no Docker daemon socket at " + path, "install docker.io and start dockerd"};
  detail = path;
  return std::nullopt;
}

std::optional<refusal> docker_client(check_context&, std::string& detail) {
  if (::access(docker_binary, X_OK) != 0)
    return refusal{std::string("no docker client at ") + docker_binary, "install the docker.io package"};
  detail = docker_binary;
  return std::nullopt;
}

std::optional<refusal> daemon_answers(check_context& c, std::string& detail) {
  c.answers = prefetch(c.what);  // the other round trips go at once, alongside this one
  auto info = c.what.engine.info();
  if (!info) {
    const bool down = info.error().what == engine_error::kind::unreachable;
    return refusal{info.error().message(), down ? "start dockerd, and run plb-sandbox as a user allowed to use it"
                                                : "check the daemon's version (Engine 20.10 or later) and its log"};
  }
  c.facts.daemon = std::move(*info);
  detail = "Docker Engine " + c.facts.daemon.server_version;
  return std::nullopt;
}

// No run starts unless something outside the tool will end it (warden.hpp).
std::optional<refusal> deadline_warden(check_context& c, std::string& detail) {
  // Asked by daemon_answers, which this row needs, alongside /info.
  std::optional<warden_refusal> r;
  if (c.answers.warden.valid()) {
    const auto [status, problem] = c.answers.warden.get();
    r = judge_warden(status, problem, detail);
  } else {
    r = check_warden(detail);
  }
  if (r) return refusal{r->detail, r->fix};
  return std::nullopt;
}

std::optional<refusal> linux_daemon(check_context& c, std::string& detail) {
  const daemon_info& d = c.facts.daemon;
  if (d.os_type != "linux")
    return refusal{"the daemon runs " + d.os_type + " containers", "use a Linux host: gVisor needs a Linux daemon"};
  detail = "linux, cgroup v" + d.cgroup_version + " (" + d.cgroup_driver + ")";
  return std::nullopt;
}

std::optional<refusal> cgroup_controllers(check_context& c, std::string& detail) {
  const daemon_info& d = c.facts.daemon;
  const std::pair<bool, const char*> controllers[] = {{d.memory_limit, "memory"},
                                                      {d.swap_limit, "memory swap accounting"},
                                                      {d.cpu_cfs_quota, "cpu (CFS quota)"},
                                                      {d.pids_limit, "pids"}};
  for (const auto& [ok, what] : controllers)
    if (!ok)
      return refusal{std::string("the daemon reports no ") + what + " controller",
                     "enable it on the kernel command line (e.g. cgroup_enable=memory swapaccount=1) and reboot"};
  detail = "memory, swap, cpu, pids";
  return std::nullopt;
}

}  // namespace

const std::array<host_check, 8> machine_checks{{
    {"state directories", nothing, nothing, state_directories},
    {"local daemon only", nothing, nothing, local_daemon_only},
    {"daemon socket", nothing, socket, daemon_socket},
    {"docker client", nothing, nothing, docker_client},
    {"daemon answers", socket, daemon, daemon_answers},
    {"deadline warden", daemon, nothing, deadline_warden},
    {"Linux daemon", daemon, nothing, linux_daemon},
    {"cgroup controllers", daemon, nothing, cgroup_controllers},
}};

}  // namespace plb::runner::checks
