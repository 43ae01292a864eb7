// The host checks as one table: each row names its requirement, what must have passed before it
// (a row whose needs are missing is skipped, saying which), what passing it establishes, and the
// function that checks. A new check is one function and one row.
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>

#include "cli_context.hpp"
#include "docker_run.hpp"
#include "gvisor_proof.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "preflight.hpp"
#include "runsc_identity.hpp"
#include "state_dirs.hpp"

namespace plb::tool {
namespace {

// What a check may need and what passing it provides.
enum need : unsigned {
  nothing = 0,
  socket = 1u << 0,         // the daemon socket exists
  daemon = 1u << 1,         // the daemon answers /info
  runsc_entry = 1u << 2,    // a runsc runtime is registered
  runsc_ok = 1u << 3,       // ... of a supported release and platform
  image_given = 1u << 4,    // an image ID was given
  image_present = 1u << 5,  // ... and is present locally
};

const char* missing_reason(unsigned missing) {
  if (missing & image_given) return "give --runtime-image";
  if (missing & socket) return "needs the daemon socket";
  if (missing & daemon) return "needs a daemon that answers";
  if (missing & runsc_entry) return "needs the runsc runtime";
  if (missing & runsc_ok) return "needs a supported runsc";
  return "needs the image";
}

struct check_context {
  const host_inspection& what;
  host_facts& facts;
  std::optional<image_facts> image;
  std::string skipped;  // set by a check that decided not to run (explain starts no container)
};

using check_fn = std::optional<refusal> (*)(check_context&, std::string& detail);

std::optional<refusal> state_directories(check_context&, std::string& detail) {
  if (auto p = check_state_dirs(true)) return refusal{p->detail, p->fix};
  detail = std::string(state_dir) + ", " + runs_dir + ", " + cache_dir + ": root's, writable by root only";
  return std::nullopt;
}

std::optional<refusal> local_daemon_only(check_context&, std::string& detail) {
  const std::string local = std::string("unix://") + docker_socket;
  if (const char* h = std::getenv("DOCKER_HOST"); h && *h && local != h)
    return refusal{std::string("DOCKER_HOST is set to ") + h + ", but plb-sandbox only uses " + local, "unset DOCKER_HOST"};
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

std::optional<refusal> linux_daemon(check_context& c, std::string& detail) {
  const daemon_info& d = c.facts.daemon;
  if (d.os_type != "linux")
    return refusal{"the daemon runs " + d.os_type + " containers", "use a Linux host: gVisor needs a Linux daemon"};
  detail = "linux, cgroup v" + d.cgroup_version + " (" + d.cgroup_driver + ")";
  return std::nullopt;
}

std::optional<refusal> runsc_registered(check_context& c, std::string& detail) {
  const auto rt = c.facts.daemon.runtimes.find(std::string(sandbox::policy_constants::runtime));
  if (rt == c.facts.daemon.runtimes.end())
    return refusal{"the daemon has no runsc runtime",
                   "install gVisor and register it in /etc/docker/daemon.json (\"runtimes\": {\"runsc\": {\"path\": "
                   "\"/usr/bin/runsc\", \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"]}}), then restart dockerd"};
  c.facts.runtime = rt->second;
  if (c.facts.runtime.path.empty()) c.facts.runtime.path = std::string(sandbox::policy_constants::runtime);
  const std::string& path = c.facts.runtime.path;
  if (path.front() != '/')
    return refusal{"the runsc runtime path \"" + path + "\" is not absolute", "give its full path in daemon.json"};
  if (::access(path.c_str(), X_OK) != 0)
    return refusal{"the runsc runtime binary " + path + " is missing or not executable", "reinstall runsc"};
  detail = path;
  return std::nullopt;
}

std::optional<refusal> runsc_release_check(check_context& c, std::string& detail) {
  host_facts& f = c.facts;
  f.runtime_version = runtime_version(f.runtime.path);
  if (f.runtime_version.find("runsc") == std::string::npos)
    return refusal{f.runtime.path + " --version does not report runsc", "point the runsc runtime at gVisor's binary"};
  f.runtime_release = runsc_release(f.runtime_version);
  f.runtime_platform = runsc_platform(f.runtime.args);
  if (f.runtime_release.empty() || f.runtime_release < min_runsc_release)
    return refusal{"runsc " + (f.runtime_release.empty() ? f.runtime_version : f.runtime_release) +
                       " is older than the oldest gVisor plb-sandbox supports (" + min_runsc_release + ")",
                   "install runsc " + std::string(min_runsc_release) +
                       " or later (Debian 12: apt-get install -t bookworm-backports runsc; or run "
                       "plb-sandbox-setup-host / ci/setup-host)"};
  if (f.runtime_platform != required_platform)
    return refusal{"the runsc runtime uses gVisor's " + f.runtime_platform +
                       " platform; the limits (host task budget, timings) are measured on systrap",
                   "set \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"] for runsc in "
                   "/etc/docker/daemon.json, then restart dockerd"};
  detail = f.runtime_release + " on " + f.runtime_platform;
  return std::nullopt;
}

std::optional<refusal> cgroup_controllers(check_context& c, std::string& detail) {
  const daemon_info& d = c.facts.daemon;
  const std::pair<bool, const char*> controllers[] = {
      {d.memory_limit, "memory"}, {d.swap_limit, "memory swap accounting"}, {d.cpu_cfs_quota, "cpu (CFS quota)"},
      {d.pids_limit, "pids"}};
  for (const auto& [ok, what] : controllers)
    if (!ok)
      return refusal{std::string("the daemon reports no ") + what + " controller",
                     "enable it on the kernel command line (e.g. cgroup_enable=memory swapaccount=1) and reboot"};
  detail = "memory, swap, cpu, pids";
  return std::nullopt;
}

std::optional<refusal> image_is_present(check_context& c, std::string& detail) {
  const sandbox::image_id& image = *c.what.image;
  auto found = c.what.engine.inspect_image(image);
  if (!found) return refusal{found.error().message(), "check dockerd"};
  if (!*found)
    return refusal{"image " + image.str() + " is not present locally (it is never pulled)",
                   "build or pull it explicitly, review it, and pass the ID from `docker image inspect NAME --format "
                   "'{{.Id}}'`"};
  if ((*found)->id != image.str())
    return refusal{"the daemon resolved " + image.str() + " to " + (*found)->id, "give the full image ID"};
  c.image = std::move(**found);
  detail = image.str();
  return std::nullopt;
}

std::optional<refusal> image_has_no_volumes(check_context& c, std::string& detail) {
  if (c.image->has_volumes)
    return refusal{"image " + c.what.image->str() + " declares volumes, which would add mounts", "rebuild it without VOLUME"};
  detail = "none declared";
  return std::nullopt;
}

std::optional<refusal> runsc_is_gvisor(check_context& c, std::string& detail) {
  host_facts& f = c.facts;
  const proof_request r{c.what.engine, f.daemon,      f.runtime,         *c.what.image, c.what.limits,
                        c.what.work_dir, f.host_kernel, f.runtime_version, c.what.cancel};
  gvisor_proof proof;
  if (auto cached = cached_proof(r)) {
    proof = *cached;
  } else if (c.what.mode == inspect_mode::explain) {
    c.skipped = "proving it starts a container; sandbox-score and doctor do";
    return std::nullopt;
  } else if (auto problem = prove_gvisor(r, proof)) {
    return problem;
  }
  f.guest_kernel = proof.guest_kernel;
  f.proof_from_cache = proof.from_cache;
  detail = f.runtime_version + "; guest kernel " + f.guest_kernel + ", host " + f.host_kernel +
           (f.proof_from_cache ? " (cached proof)" : "");
  return std::nullopt;
}

struct host_check {
  const char* requirement;
  unsigned needs;
  unsigned provides;
  check_fn run;
};

constexpr host_check host_checks[] = {
    {"state directories", nothing, nothing, state_directories},
    {"local daemon only", nothing, nothing, local_daemon_only},
    {"daemon socket", nothing, socket, daemon_socket},
    {"docker client", nothing, nothing, docker_client},
    {"daemon answers", socket, daemon, daemon_answers},
    {"Linux daemon", daemon, nothing, linux_daemon},
    {"runsc registered", daemon, runsc_entry, runsc_registered},
    {"runsc release", runsc_entry, runsc_ok, runsc_release_check},
    {"cgroup controllers", daemon, nothing, cgroup_controllers},
    {"image present", daemon | image_given, image_present, image_is_present},
    {"image has no volumes", image_present, nothing, image_has_no_volumes},
    {"runsc is gVisor", image_present | runsc_ok, nothing, runsc_is_gvisor},
};

}  // namespace

std::vector<check_result> inspect_host(const host_inspection& what, host_facts& facts) {
  utsname u{};
  ::uname(&u);
  facts.host_kernel = u.release;
  check_context context{what, facts, std::nullopt, {}};
  unsigned established = what.image ? image_given : nothing;
  std::vector<check_result> results;
  for (const host_check& check : host_checks) {
    check_result r;
    r.requirement = check.requirement;
    if (const unsigned missing = check.needs & ~established) {
      r.detail = missing_reason(missing);
      results.push_back(std::move(r));
      continue;
    }
    context.skipped.clear();
    if (auto problem = check.run(context, r.detail)) {
      r.status = check_status::fail;
      r.detail = problem->detail;
      r.fix = problem->fix;
      results.push_back(std::move(r));
      if (what.mode == inspect_mode::preflight) break;
      continue;
    }
    if (!context.skipped.empty()) {
      r.detail = context.skipped;
    } else {
      r.status = check_status::pass;
      established |= check.provides;
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace plb::tool
