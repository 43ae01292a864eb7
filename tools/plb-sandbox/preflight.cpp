#include "preflight.hpp"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "command.hpp"
#include "container_cleanup.hpp"
#include "docker_run.hpp"
#include "failure.hpp"
#include "plb/sandbox/container_spec.hpp"
#include "plb/sandbox/digest.hpp"
#include "owner.hpp"
#include "run_id.hpp"
#include "sweep.hpp"

namespace plb::tool {
namespace {

using sandbox::verdict;

[[noreturn]] void refuse(const std::string& what) { fail(verdict::host_refused, what); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string current_cli_context() {
  const char* dir = std::getenv("DOCKER_CONFIG");
  const char* home = std::getenv("HOME");
  const std::string config = dir ? std::string(dir) + "/config.json" : home ? std::string(home) + "/.docker/config.json" : "";
  if (config.empty()) return {};
  boost::json::error_code ec;
  const auto v = boost::json::parse(read_file(config), ec);
  if (ec || !v.is_object()) return {};
  const auto* c = v.get_object().if_contains("currentContext");
  return c && c->is_string() ? std::string(c->get_string()) : std::string{};
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
  if (::stat(runtime_path.c_str(), &st) != 0) refuse("runsc runtime binary " + runtime_path + " is missing");
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

std::optional<proof> load_proof(const std::string& key) {
  const std::string text = read_file(std::string(proof_cache_dir) + "/" + key + ".json");
  if (text.empty()) return std::nullopt;
  boost::json::error_code ec;
  const auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* g = v.get_object().if_contains("guest_kernel");
  const auto* r = v.get_object().if_contains("runtime_version");
  if (!g || !r || !g->is_string() || !r->is_string()) return std::nullopt;
  return proof{std::string(g->get_string()), std::string(r->get_string())};
}

void store_proof(const std::string& key, const proof& p) {
  // Best effort: a cache that cannot be written only costs the next run a probe.
  std::string path = proof_cache_dir;
  for (std::size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0700);
  const std::string final_path = path + "/" + key + ".json";
  const std::string tmp = final_path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << boost::json::serialize(boost::json::object{{"guest_kernel", p.guest_kernel},
                                                      {"runtime_version", p.runtime_version}});
    if (!out) return;
  }
  if (std::rename(tmp.c_str(), final_path.c_str()) != 0) std::remove(tmp.c_str());
}

proof run_probe(const docker_engine& engine, const daemon_info& daemon, const sandbox::image_id& image,
                const sandbox::SandboxLimits& limits, const std::string& runtime_path, const std::string& work_dir,
                const std::string& host_kernel) {
  sandbox::container_spec_builder b;
  b.image(image).run_id(new_run_id()).owner(self_owner()).limits(limits);
  const auto spec = b.build_probe();
  if (!spec) fail(verdict::internal_error, "probe spec: " + std::string(sandbox::message(spec.error)));

  docker_run_request req;
  req.arguments = spec.spec.docker_probe_arguments();
  req.container_name = spec.spec.container_name();
  req.wall = std::chrono::seconds(60);
  req.output_cap_bytes = 4096;
  req.environment = docker_client_environment(work_dir);
  cgroup_monitor monitor(daemon.cgroup_version, daemon.cgroup_driver);
  const auto out = run_docker(req, engine, monitor);
  const auto state = inspect_container(engine, req.container_name);
  remove_container(engine, req.container_name);

  if (out.interrupted_by) fail(verdict::internal_error, "interrupted during the gVisor probe");
  if (out.timed_out) refuse("the gVisor probe container did not finish within 60 s: check `runsc` and dockerd's log");
  const std::int64_t code = state ? state->exit_code : out.client_exit_code;
  if (!state || code != 0) {
    if (state && !state->error.empty())
      refuse("the runsc runtime could not start the image (" + state->error + "): check the runsc installation");
    if (code == 125 || code == 126 || code == 127)
      refuse("the image cannot run /usr/bin/env -i /usr/local/bin/python (exit " + std::to_string(code) +
             "): the reviewed image must contain both");
    refuse("the gVisor probe failed with exit " + std::to_string(code) + ": check the image and the runsc runtime");
  }
  std::string release = out.stdout_bytes;
  while (!release.empty() && (release.back() == '\n' || release.back() == '\r')) release.pop_back();
  if (!safe_release(release)) refuse("the gVisor probe printed no kernel release: check the image's python");
  if (release == host_kernel)
    refuse("the runtime named runsc runs containers on the host kernel (" + host_kernel +
           "): it is not gVisor. Point the runsc entry in /etc/docker/daemon.json at the gVisor runsc binary");

  const auto version = capture_command(runtime_path, {"--version"}, std::chrono::seconds(10));
  std::string first_line = version.substr(0, version.find('\n'));
  if (first_line.find("runsc") == std::string::npos)
    refuse(runtime_path + " --version does not report runsc: point the runsc runtime at the gVisor binary");
  return {release, first_line};
}

}  // namespace

void check_local_daemon_only() {
  const std::string local = std::string("unix://") + docker_socket;
  if (const char* h = std::getenv("DOCKER_HOST"); h && *h && local != h)
    refuse(std::string("DOCKER_HOST is set to ") + h + ": plb-sandbox only uses the local daemon at " + local +
           "; unset DOCKER_HOST");
  if (const char* c = std::getenv("DOCKER_CONTEXT"); c && *c && std::string(c) != "default")
    refuse(std::string("DOCKER_CONTEXT is set to ") + c + ": plb-sandbox only uses the local daemon; unset it");
  if (const auto ctx = current_cli_context(); !ctx.empty() && ctx != "default")
    refuse("the docker CLI's current context is " + ctx +
           ": plb-sandbox only uses the local daemon; run `docker context use default`");
}

host_facts preflight(const docker_engine& engine, const sandbox::image_id& image, const sandbox::SandboxLimits& limits,
                     const std::string& work_dir) {
  check_local_daemon_only();
  struct stat st {};
  if (::stat(engine.socket_path().c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
    refuse("no Docker daemon socket at " + engine.socket_path() + ": install docker.io and start dockerd");
  if (::access(docker_binary, X_OK) != 0)
    refuse(std::string("no docker client at ") + docker_binary + ": install the docker.io package");

  std::string problem;
  auto reply = engine.get("/info", problem);
  if (!reply) refuse(problem + ": start dockerd, and run plb-sandbox as a user allowed to use it");
  // What runs killed before they could clean up left behind goes before anything new starts.
  sweep_orphans(engine);
  if (reply->status != 200) refuse("the Docker daemon answered /info with HTTP " + std::to_string(reply->status));
  auto info = parse_daemon_info(reply->body, problem);
  if (!info) refuse("cannot read the Docker daemon's /info: " + problem);

  host_facts facts;
  facts.daemon = *info;
  if (info->os_type != "linux")
    refuse("the Docker daemon runs " + info->os_type + " containers: gVisor needs a Linux daemon");
  const auto rt = info->runtimes.find("runsc");
  if (rt == info->runtimes.end())
    refuse("the Docker daemon has no runsc runtime: install gVisor and register it in /etc/docker/daemon.json "
           "(\"runtimes\": {\"runsc\": {\"path\": \"/usr/bin/runsc\", \"runtimeArgs\": [\"--network=none\"]}}), "
           "then restart dockerd");
  facts.runtime_path = rt->second.path.empty() ? "runsc" : rt->second.path;
  if (facts.runtime_path.front() != '/')
    refuse("the runsc runtime path \"" + facts.runtime_path + "\" is not absolute: give its full path in daemon.json");
  if (::access(facts.runtime_path.c_str(), X_OK) != 0)
    refuse("the runsc runtime binary " + facts.runtime_path + " is missing or not executable");
  const std::pair<bool, const char*> controllers[] = {{info->memory_limit, "memory"},
                                                      {info->swap_limit, "memory swap accounting"},
                                                      {info->cpu_cfs_quota, "cpu (CFS quota)"},
                                                      {info->pids_limit, "pids"}};
  for (const auto& [ok, what] : controllers)
    if (!ok)
      refuse(std::string("the Docker daemon reports no ") + what +
             " cgroup controller: enable it in the kernel command line (e.g. cgroup_enable=memory swapaccount=1) and reboot");

  reply = engine.get("/images/" + image.str() + "/json", problem);
  if (!reply) refuse(problem);
  if (reply->status == 404)
    refuse("image " + image.str() + " is not present locally (it is never pulled): build or pull it explicitly, "
           "review it, and pass the ID from `docker image inspect NAME --format '{{.Id}}'`");
  if (reply->status != 200) refuse("inspecting the image answered HTTP " + std::to_string(reply->status));
  auto facts_img = parse_image_inspect(reply->body, problem);
  if (!facts_img) refuse("cannot read the image's inspection: " + problem);
  if (facts_img->id != image.str()) refuse("the daemon resolved " + image.str() + " to a different image ID");
  if (facts_img->has_volumes) refuse("image " + image.str() + " declares volumes, which would add mounts: rebuild it without VOLUME");

  utsname u{};
  ::uname(&u);
  facts.host_kernel = u.release;
  const std::string key = proof_key(*info, facts.runtime_path, rt->second, image, facts.host_kernel);
  if (auto cached = load_proof(key)) {
    facts.guest_kernel = cached->guest_kernel;
    facts.runtime_version = cached->runtime_version;
    facts.proof_from_cache = true;
    return facts;
  }
  const proof p = run_probe(engine, *info, image, limits, facts.runtime_path, work_dir, facts.host_kernel);
  store_proof(key, p);
  facts.guest_kernel = p.guest_kernel;
  facts.runtime_version = p.runtime_version;
  return facts;
}

}  // namespace plb::tool
