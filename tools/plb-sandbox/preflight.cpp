#include "preflight.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <boost/json.hpp>

#include "command.hpp"
#include "container_run.hpp"
#include "failure.hpp"
#include "file_io.hpp"
#include "owner.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "plb/sandbox/digest.hpp"
#include "run_id.hpp"
#include "state_dirs.hpp"

namespace plb::tool {
namespace {

using sandbox::verdict;

// A check that failed: what was found, and what the operator does about it.
struct refusal {
  std::string detail, fix;
};

inline constexpr std::size_t max_cli_config_bytes = 64 * 1024;

// The docker CLI's current context, from the operator's CLI configuration. The file is read
// bounded and only if it is a regular file: a FIFO or a device there must not hang the tool.
std::optional<refusal> current_cli_context(std::string& context) {
  const char* dir = std::getenv("DOCKER_CONFIG");
  const char* home = std::getenv("HOME");
  const std::string config = dir ? std::string(dir) + "/config.json" : home ? std::string(home) + "/.docker/config.json" : "";
  struct stat st {};
  if (config.empty() || ::lstat(config.c_str(), &st) != 0) return std::nullopt;
  const auto text = read_small_file(config, max_cli_config_bytes);
  if (!text)
    return refusal{"the docker CLI configuration " + config + " is not a readable regular file of at most 64 KiB",
                   "fix or remove it (plb-sandbox reads only its currentContext)"};
  boost::json::error_code ec;
  const auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* c = v.get_object().if_contains("currentContext");
  if (c && c->is_string()) context = std::string(c->get_string());
  return std::nullopt;
}

// gVisor's release date from `runsc --version` ("runsc version 0.0~20240729.0"); empty if none.
std::string runsc_release(const std::string& version) {
  const auto tilde = version.find('~');
  if (tilde == std::string::npos || version.size() < tilde + 9) return {};
  const std::string date = version.substr(tilde + 1, 8);
  for (char ch : date)
    if (ch < '0' || ch > '9') return {};
  return date;
}

// The platform the daemon's runtime arguments select; runsc's own default when none is given
// (systrap since well before the oldest release accepted).
std::string runsc_platform(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].starts_with("--platform=")) return args[i].substr(11);
    if (args[i] == "--platform" && i + 1 < args.size()) return args[i + 1];
  }
  return "systrap";
}

bool safe_release(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' && c != '_') return false;
  return true;
}

// Everything that could change whether runsc is gVisor and runs this image.
std::string proof_key(const daemon_info& d, const std::string& runtime_path, const runtime_entry& rt,
                      const sandbox::image_id& image, const std::string& host_kernel) {
  struct stat st {};
  ::stat(runtime_path.c_str(), &st);
  std::ostringstream k;
  k << "v1\n" << d.id << '\n' << d.server_version << '\n' << runtime_path << '\n';
  for (const auto& a : rt.args) k << a << '\0';
  k << '\n' << st.st_dev << ':' << st.st_ino << ':' << st.st_size << ':' << st.st_mtim.tv_sec << '.'
    << st.st_mtim.tv_nsec << ':' << st.st_ctim.tv_sec << '.' << st.st_ctim.tv_nsec << '\n'
    << image.str() << '\n' << host_kernel << '\n';
  return sandbox::sha256_of(k.str()).digest.hex();
}

struct proof {
  std::string guest_kernel, runtime_version;
};

// The cache lives in the checked cache directory: a proof is only as trustworthy as the directory
// it was read from, so an unsafe directory means no cached proof at all.
std::optional<proof> load_proof(const std::string& key) {
  if (!open_cache_dir(false)) return std::nullopt;
  const auto text = read_small_file(std::string(proof_cache_dir) + "/" + key + ".json");
  if (!text) return std::nullopt;
  boost::json::error_code ec;
  const auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* g = v.get_object().if_contains("guest_kernel");
  const auto* r = v.get_object().if_contains("runtime_version");
  if (!g || !r || !g->is_string() || !r->is_string()) return std::nullopt;
  return proof{std::string(g->get_string()), std::string(r->get_string())};
}

void store_proof(const std::string& key, const proof& p) {
  // Best effort: a cache that cannot be written only costs the next run a probe.
  const unique_fd cache = open_cache_dir(true);
  if (!cache) return;
  ::mkdirat(cache.get(), proof_subdir, 0700);
  const unique_fd dir(::openat(cache.get(), proof_subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) return;
  const std::string name = key + ".json";
  const std::string tmp = name + ".tmp." + std::to_string(::getpid());
  const std::string text = boost::json::serialize(boost::json::object{{"guest_kernel", p.guest_kernel},
                                                                       {"runtime_version", p.runtime_version}});
  {
    const unique_fd out(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!out || write_all(out.get(), text) != 0) {
      ::unlinkat(dir.get(), tmp.c_str(), 0);
      return;
    }
  }
  if (::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0) ::unlinkat(dir.get(), tmp.c_str(), 0);
}

std::string runtime_version(const std::string& runtime_path) {
  const auto text = capture_command(runtime_path, {"--version"}, std::chrono::seconds(10));
  return text.substr(0, text.find('\n'));
}

// Starts the image under runsc with every control and compares the kernel release it sees with
// the host's: under gVisor it is gVisor's own. Also proves the image runs both interpreters.
std::optional<refusal> run_probe(const docker_engine& engine, const daemon_info& daemon, const sandbox::image_id& image,
                                 const sandbox::SandboxLimits& limits, const std::string& work_dir,
                                 const cancellation* cancel, const std::string& host_kernel, std::string& release) {
  const std::string run_id = new_run_id();
  sandbox::sandbox_policy_builder b;
  b.image(image).run_id(run_id).owner(self_owner()).limits(limits);
  const auto spec = b.build_probe();
  if (!spec) fail(verdict::internal_error, "probe spec: " + std::string(sandbox::message(spec.error)));

  container_run container(engine, spec.spec->container_name());
  docker_run_request req;
  req.arguments = spec.spec->docker_probe_arguments();
  req.wall = std::chrono::seconds(60);
  req.output_cap_bytes = 4096;
  req.environment = docker_client_environment(work_dir);
  req.cancel = cancel;
  cgroup_monitor monitor(daemon.cgroup_version, daemon.cgroup_driver);
  const completed_run done = container.run(req, monitor);
  const docker_run_outcome& out = done.outcome;
  const std::optional<container_state>& state = done.state;

  if (out.interrupted_by) throw interrupted{out.interrupted_by};
  if (out.timed_out) return refusal{"the probe container did not finish within 60 s", "check runsc and dockerd's log"};
  const std::int64_t code = state ? state->exit_code : out.client_exit_code;
  if (!state || code != 0) {
    if (state && !state->error.empty())
      return refusal{"runsc could not start the image (" + state->error + ")", "check the runsc installation"};
    if (code == 125 || code == 126 || code == 127)
      return refusal{"the image cannot run /usr/bin/env -i /usr/local/bin/python (exit " + std::to_string(code) + ")",
                     "the reviewed image must contain both"};
    return refusal{"the probe failed with exit " + std::to_string(code), "check the image and the runsc runtime"};
  }
  release = out.stdout_bytes;
  while (!release.empty() && (release.back() == '\n' || release.back() == '\r')) release.pop_back();
  if (!safe_release(release)) return refusal{"the probe printed no kernel release", "check the image's python"};
  if (release == host_kernel)
    return refusal{"the runtime named runsc runs containers on the host kernel (" + host_kernel + "): it is not gVisor",
                   "point the runsc entry in /etc/docker/daemon.json at the gVisor runsc binary and restart dockerd"};
  return std::nullopt;
}

class checklist {
 public:
  checklist(bool stop, std::vector<check_result>& out) : stop_(stop), out_(out) {}

  // Runs `check` unless an earlier failure ends the list. Returns whether it passed.
  bool run(const std::string& requirement, const std::function<std::optional<refusal>(std::string&)>& check) {
    if (stopped_) return false;
    check_result r;
    r.requirement = requirement;
    const auto problem = check(r.detail);
    if (problem) {
      r.status = check_status::fail;
      r.detail = problem->detail;
      r.fix = problem->fix;
      if (stop_) stopped_ = true;
    } else {
      r.status = check_status::pass;
    }
    out_.push_back(std::move(r));
    return !problem;
  }

  void skip(const std::string& requirement, const std::string& why) {
    if (!stopped_) out_.push_back({requirement, check_status::skipped, why, ""});
  }

 private:
  bool stop_;
  bool stopped_ = false;
  std::vector<check_result>& out_;
};

}  // namespace

std::vector<check_result> inspect_host(const docker_engine& engine, const std::optional<sandbox::image_id>& image,
                                       const sandbox::SandboxLimits& limits, const std::string& work_dir,
                                       const cancellation* cancel, bool stop_at_first_failure, bool allow_probe,
                                       host_facts& facts) {
  std::vector<check_result> results;
  checklist c(stop_at_first_failure, results);

  c.run("state directories", [](std::string& detail) -> std::optional<refusal> {
    if (auto p = check_state_dirs(true)) return refusal{p->detail, p->fix};
    detail = std::string(state_dir) + ", " + runs_dir + ", " + cache_dir + ": root's, writable by root only";
    return std::nullopt;
  });

  c.run("local daemon only", [](std::string& detail) -> std::optional<refusal> {
    const std::string local = std::string("unix://") + docker_socket;
    if (const char* h = std::getenv("DOCKER_HOST"); h && *h && local != h)
      return refusal{std::string("DOCKER_HOST is set to ") + h + ", but plb-sandbox only uses " + local, "unset DOCKER_HOST"};
    if (const char* x = std::getenv("DOCKER_CONTEXT"); x && *x && std::string(x) != "default")
      return refusal{std::string("DOCKER_CONTEXT is set to ") + x + ", but plb-sandbox only uses the local daemon",
                     "unset DOCKER_CONTEXT"};
    std::string ctx;
    if (auto problem = current_cli_context(ctx)) return problem;
    if (!ctx.empty() && ctx != "default")
      return refusal{"the docker CLI's current context is " + ctx + ", but plb-sandbox only uses the local daemon",
                     "run `docker context use default`"};
    detail = local;
    return std::nullopt;
  });
  const bool socket_ok = c.run("daemon socket", [&](std::string& detail) -> std::optional<refusal> {
    struct stat st {};
    if (::stat(engine.socket_path().c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
      return refusal{"no Docker daemon socket at " + engine.socket_path(), "install docker.io and start dockerd"};
    detail = engine.socket_path();
    return std::nullopt;
  });
  c.run("docker client", [](std::string& detail) -> std::optional<refusal> {
    if (::access(docker_binary, X_OK) != 0)
      return refusal{std::string("no docker client at ") + docker_binary, "install the docker.io package"};
    detail = docker_binary;
    return std::nullopt;
  });
  const bool daemon_ok = socket_ok && c.run("daemon answers", [&](std::string& detail) -> std::optional<refusal> {
    std::string problem;
    auto reply = engine.get("/info", problem);
    if (!reply) return refusal{problem, "start dockerd, and run plb-sandbox as a user allowed to use it"};
    if (reply->status != 200) return refusal{"/info answered HTTP " + std::to_string(reply->status), "check dockerd's log"};
    auto info = parse_daemon_info(reply->body, problem);
    if (!info) return refusal{"cannot read the daemon's /info: " + problem, "check the daemon's version (Engine 20.10 or later)"};
    facts.daemon = *info;
    detail = "Docker Engine " + info->server_version;
    return std::nullopt;
  });
  if (!daemon_ok) {
    for (const char* r : {"Linux daemon", "runsc registered", "runsc release", "cgroup controllers", "image present",
                          "image has no volumes", "runsc is gVisor"})
      c.skip(r, "needs a daemon that answers");
    return results;
  }
  const daemon_info& info = facts.daemon;
  c.run("Linux daemon", [&](std::string& detail) -> std::optional<refusal> {
    if (info.os_type != "linux")
      return refusal{"the daemon runs " + info.os_type + " containers", "use a Linux host: gVisor needs a Linux daemon"};
    detail = "linux, cgroup v" + info.cgroup_version + " (" + info.cgroup_driver + ")";
    return std::nullopt;
  });
  const auto rt = info.runtimes.find(std::string(sandbox::policy_constants::runtime));
  const bool runsc_ok = c.run("runsc registered", [&](std::string& detail) -> std::optional<refusal> {
    if (rt == info.runtimes.end())
      return refusal{"the daemon has no runsc runtime",
                     "install gVisor and register it in /etc/docker/daemon.json (\"runtimes\": {\"runsc\": {\"path\": "
                     "\"/usr/bin/runsc\", \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"]}}), then restart dockerd"};
    facts.runtime_path = rt->second.path.empty() ? "runsc" : rt->second.path;
    if (facts.runtime_path.front() != '/')
      return refusal{"the runsc runtime path \"" + facts.runtime_path + "\" is not absolute", "give its full path in daemon.json"};
    if (::access(facts.runtime_path.c_str(), X_OK) != 0)
      return refusal{"the runsc runtime binary " + facts.runtime_path + " is missing or not executable", "reinstall runsc"};
    detail = facts.runtime_path;
    return std::nullopt;
  });
  const bool release_ok = runsc_ok && c.run("runsc release", [&](std::string& detail) -> std::optional<refusal> {
    facts.runtime_version = runtime_version(facts.runtime_path);
    if (facts.runtime_version.find("runsc") == std::string::npos)
      return refusal{facts.runtime_path + " --version does not report runsc", "point the runsc runtime at gVisor's binary"};
    facts.runtime_release = runsc_release(facts.runtime_version);
    facts.runtime_platform = runsc_platform(rt->second.args);
    if (facts.runtime_release.empty() || facts.runtime_release < min_runsc_release)
      return refusal{"runsc " + (facts.runtime_release.empty() ? facts.runtime_version : facts.runtime_release) +
                         " is older than the oldest gVisor plb-sandbox supports (" + min_runsc_release + ")",
                     "install runsc " + std::string(min_runsc_release) +
                         " or later (Debian 12: apt-get install -t bookworm-backports runsc; or run "
                         "plb-sandbox-setup-host / ci/setup-host)"};
    if (facts.runtime_platform != "systrap")
      return refusal{"the runsc runtime uses gVisor's " + facts.runtime_platform +
                         " platform; the limits (host task budget, timings) are measured on systrap",
                     "set \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"] for runsc in "
                     "/etc/docker/daemon.json, then restart dockerd"};
    detail = facts.runtime_release + " on " + facts.runtime_platform;
    return std::nullopt;
  });
  c.run("cgroup controllers", [&](std::string& detail) -> std::optional<refusal> {
    const std::pair<bool, const char*> controllers[] = {
        {info.memory_limit, "memory"}, {info.swap_limit, "memory swap accounting"}, {info.cpu_cfs_quota, "cpu (CFS quota)"},
        {info.pids_limit, "pids"}};
    for (const auto& [ok, what] : controllers)
      if (!ok)
        return refusal{std::string("the daemon reports no ") + what + " controller",
                       "enable it on the kernel command line (e.g. cgroup_enable=memory swapaccount=1) and reboot"};
    detail = "memory, swap, cpu, pids";
    return std::nullopt;
  });
  utsname u{};
  ::uname(&u);
  facts.host_kernel = u.release;

  if (!image) {
    c.skip("image present", "give --runtime-image");
    c.skip("image has no volumes", "give --runtime-image");
    c.skip("runsc is gVisor", "the proof runs the image: give --runtime-image");
    return results;
  }

  std::optional<image_facts> img;
  const bool present = c.run("image present", [&](std::string& detail) -> std::optional<refusal> {
    std::string problem;
    auto reply = engine.get("/images/" + image->str() + "/json", problem);
    if (!reply) return refusal{problem, "check dockerd"};
    if (reply->status == 404)
      return refusal{"image " + image->str() + " is not present locally (it is never pulled)",
                     "build or pull it explicitly, review it, and pass the ID from `docker image inspect NAME --format "
                     "'{{.Id}}'`"};
    if (reply->status != 200) return refusal{"inspecting the image answered HTTP " + std::to_string(reply->status), "check dockerd"};
    img = parse_image_inspect(reply->body, problem);
    if (!img) return refusal{"cannot read the image's inspection: " + problem, "check dockerd"};
    if (img->id != image->str()) return refusal{"the daemon resolved " + image->str() + " to " + img->id, "give the full image ID"};
    detail = image->str();
    return std::nullopt;
  });
  if (present)
    c.run("image has no volumes", [&](std::string& detail) -> std::optional<refusal> {
      if (img->has_volumes)
        return refusal{"image " + image->str() + " declares volumes, which would add mounts", "rebuild it without VOLUME"};
      detail = "none declared";
      return std::nullopt;
    });
  else
    c.skip("image has no volumes", "needs the image");
  if (!present || !release_ok) {
    c.skip("runsc is gVisor", "needs the image and a supported runsc runtime");
    return results;
  }
  const std::string key = proof_key(info, facts.runtime_path, rt->second, *image, facts.host_kernel);
  const auto cached = load_proof(key);
  if (!cached && !allow_probe) {
    c.skip("runsc is gVisor", "proving it starts a container; sandbox-score and doctor do");
    return results;
  }
  c.run("runsc is gVisor", [&](std::string& detail) -> std::optional<refusal> {
    if (cached) {
      facts.guest_kernel = cached->guest_kernel;
      facts.proof_from_cache = true;
    } else {
      std::string release;
      if (auto r = run_probe(engine, info, *image, limits, work_dir, cancel, facts.host_kernel, release)) return r;
      store_proof(key, {release, facts.runtime_version});
      facts.guest_kernel = release;
    }
    detail = facts.runtime_version + "; guest kernel " + facts.guest_kernel + ", host " + facts.host_kernel +
             (facts.proof_from_cache ? " (cached proof)" : "");
    return std::nullopt;
  });
  return results;
}

host_facts preflight(const docker_engine& engine, const sandbox::image_id& image, const sandbox::SandboxLimits& limits,
                     const std::string& work_dir, const cancellation& cancel) {
  host_facts facts;
  const auto results = inspect_host(engine, image, limits, work_dir, &cancel, true, true, facts);
  for (const auto& r : results)
    if (r.status == check_status::fail) fail(verdict::host_refused, r.detail + ": " + r.fix);
  return facts;
}

}  // namespace plb::tool
