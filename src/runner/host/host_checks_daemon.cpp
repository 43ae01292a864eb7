// SPDX-License-Identifier: Apache-2.0
// The host checks about the machine and its daemon: their slice of the table, beside their functions
// (host_check_steps.hpp declares the slices; host_checks.cpp runs them in order).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "runner/container/client_launch.hpp"  // docker_binary
#include "runner/host/cgroup_hierarchy.hpp"
#include "runner/host/docker_cli_context.hpp"
#include "runner/host/host_check_steps.hpp"
#include "runner/host/runs_cpu_weight.hpp"
#include "runner/host/warden.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::runner::checks {
namespace {

host_result<std::string> state_directories(check_context&) {
  if (auto checked = check_state_dirs(true); !checked) return checked.error();
  return std::string(state_dir) + ", " + runs_dir + ", " + cache_dir + ": root's, writable by root only";
}

host_result<std::string> local_daemon_only(check_context&) {
  const std::string local = std::string("unix://") + docker_socket;
  if (const char* h = std::getenv("DOCKER_HOST"); h && *h && local != h)
    return refusal{std::string("DOCKER_HOST is set to ") + h + ", but plb-sandbox only uses " + local,
                   "unset DOCKER_HOST"};
  if (const char* x = std::getenv("DOCKER_CONTEXT"); x && *x && std::string(x) != "default")
    return refusal{std::string("DOCKER_CONTEXT is set to ") + x + ", but plb-sandbox only uses the local daemon",
                   "unset DOCKER_CONTEXT"};
  const auto ctx = current_docker_cli_context();
  if (!ctx) return refusal{ctx.error().what, "fix or remove it (plb-sandbox reads only its currentContext)"};
  if (!ctx->empty() && *ctx != "default")
    return refusal{"the docker CLI's current context is " + *ctx + ", but plb-sandbox only uses the local daemon",
                   "run `docker context use default`"};
  return local;
}

host_result<std::string> daemon_socket(check_context& c) {
  struct stat st {};
  const std::string& path = c.what.engine.socket_path();
  if (::stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return refusal{"no Docker daemon socket at " + path, "install docker.io and start dockerd"};
  return path;
}

host_result<std::string> docker_client(check_context&) {
  if (::access(docker_binary, X_OK) != 0)
    return refusal{std::string("no docker client at ") + docker_binary, "install the docker.io package"};
  return docker_binary;
}

host_result<std::string> daemon_answers(check_context& c) {
  c.answers = prefetch(c.what);  // the other round trips go at once, alongside this one
  auto info = c.what.engine.info();
  if (!info) {
    const bool down = info.error().what == engine_error::kind::unreachable;
    return refusal{info.error().message(), down ? "start dockerd, and run plb-sandbox as a user allowed to use it"
                                                : "check the daemon's version (Engine 20.10 or later) and its log"};
  }
  c.facts.daemon = std::move(*info);
  return "Docker Engine " + c.facts.daemon.server_version;
}

// No run starts unless something outside the tool will end it (warden.hpp).
host_result<std::string> deadline_warden(check_context& c) {
  // Asked by daemon_answers, which this row needs, alongside /info.
  return c.answers.warden.valid() ? judge_warden(c.answers.warden.get()) : check_warden();
}

host_result<std::string> linux_daemon(check_context& c) {
  const daemon_info& d = c.facts.daemon;
  if (d.os_type != "linux")
    return refusal{"the daemon runs " + d.os_type + " containers", "use a Linux host: gVisor needs a Linux daemon"};
  return "linux, cgroup v" + d.cgroup_version + " (" + d.cgroup_driver + ")";
}

host_result<std::string> cgroup_controllers(check_context& c) {
  const daemon_info& d = c.facts.daemon;
  const std::pair<bool, const char*> controllers[] = {{d.memory_limit, "memory"},
                                                      {d.swap_limit, "memory swap accounting"},
                                                      {d.cpu_cfs_quota, "cpu (CFS quota)"},
                                                      {d.pids_limit, "pids"}};
  for (const auto& [ok, what] : controllers)
    if (!ok)
      return refusal{std::string("the daemon reports no ") + what + " controller",
                     "enable it on the kernel command line (e.g. cgroup_enable=memory swapaccount=1) and reboot"};
  return "memory, swap, cpu, pids";
}

// What this process sees at /sys/fs/cgroup: doctor names it, and it must be the daemon's tree
// (the cgroup monitor reads the container's files there by the daemon's version).
host_result<std::string> cgroup_tree(check_context& c) {
  return judge_cgroup_hierarchy(find_cgroup_hierarchy(), c.facts.daemon.cgroup_version);
}

// How the scheduler weighs the runs against the host's own processes (runs_cpu_weight.hpp): named,
// never refused.
host_result<std::string> runs_cpu_share(check_context& c) {
  return describe(read_runs_cpu_weight(c.facts.daemon.cgroup_version, c.facts.daemon.cgroup_driver));
}

}  // namespace

const host_check machine_table[] = {
    {"state directories", nothing, nothing, state_directories},
    {"local daemon only", nothing, nothing, local_daemon_only},
    {"daemon socket", nothing, socket, daemon_socket},
    {"docker client", nothing, nothing, docker_client},
    {"daemon answers", socket, daemon, daemon_answers},
    {"deadline warden", daemon, nothing, deadline_warden},
    {"Linux daemon", daemon, nothing, linux_daemon},
    {"cgroup controllers", daemon, nothing, cgroup_controllers},
    {"cgroup hierarchy", daemon, nothing, cgroup_tree},
    {"runs' CPU weight", daemon, nothing, runs_cpu_share},
};
const std::span<const host_check> machine_checks{machine_table};

}  // namespace plb::runner::checks
