// SPDX-License-Identifier: Apache-2.0
#include "runner/host/gvisor_proof.hpp"

#include <sstream>

#include <boost/json.hpp>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/container/container_run.hpp"
#include "runner/container/owner.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/container/run_id.hpp"
#include "runner/host/runsc_identity.hpp"
#include "runner/state/cache_entry.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

bool safe_release(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' && c != '_') return false;
  return true;
}

// Everything that could change whether runsc is gVisor and runs this image.
std::string proof_key(const proof_request& r) {
  std::ostringstream k;
  k << "v1\n" << r.daemon.id << '\n' << r.daemon.server_version << '\n' << r.runtime.path << '\n';
  for (const auto& a : r.runtime.args) k << a << '\0';
  k << '\n' << binary_identity(r.runtime.path) << '\n' << r.image.str() << '\n' << r.host_kernel << '\n';
  return sandbox::sha256_of(k.str()).digest.hex();
}

void store_proof(const std::string& key, const std::string& guest_kernel, const std::string& runtime_version) {
  store_cache_entry(proof_subdir, key + ".json",
                    boost::json::serialize(
                        boost::json::object{{"guest_kernel", guest_kernel}, {"runtime_version", runtime_version}}));
}

// What a probe that did not print a kernel release says about the host.
refusal probe_failure(const completed_run& done, std::uint64_t start_seconds) {
  const docker_run_outcome& out = done.outcome;
  if (out.start_timed_out)
    return {"the probe container did not start within its " + std::to_string(start_seconds) + " s start allowance",
            "check runsc, dockerd's log and the host's load"};
  if (out.client_ended_late)
    return {"the probe's docker client did not report its exit within 5 s of the daemon",
            "check the host's load and dockerd's log"};
  if (out.timed_out)
    return {"the probe container did not finish within " +
                std::to_string(sandbox::policy_constants::probe_wall_seconds) + " s",
            "check runsc and dockerd's log"};
  if (done.state && !done.state->error.empty())
    return {"runsc could not start the image (" + done.state->error + ")", "check the runsc installation"};
  const std::int64_t code = done.state ? done.state->exit_code : out.client_exit_code;
  if (code == 125 || code == 126 || code == 127)
    return {"the image cannot run /usr/bin/env -i /usr/local/bin/python (exit " + std::to_string(code) + ")",
            "the reviewed image must contain both"};
  return {"the probe failed with exit " + std::to_string(code), "check the image and the runsc runtime"};
}

}  // namespace

std::optional<gvisor_proof> cached_proof(const proof_request& r) {
  // A proof is only as trustworthy as the directories it was read from (cache_entry.hpp).
  const auto text = read_cache_entry(proof_subdir, proof_key(r) + ".json");
  if (!text) return std::nullopt;
  boost::json::error_code ec;
  const auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* g = v.get_object().if_contains("guest_kernel");
  if (!g || !g->is_string() || !safe_release(std::string(g->get_string()))) return std::nullopt;
  return gvisor_proof{std::string(g->get_string()), true};
}

host_result<gvisor_proof> prove_gvisor(const proof_request& r) {
  sandbox::sandbox_policy_builder b;
  b.image(r.image).run_id(new_run_id()).owner(self_owner()).limits(r.limits);
  const auto policy = b.build_probe();
  if (!policy) fail(sandbox::verdict::internal_error, "probe policy: " + std::string(sandbox::message(policy.error)));

  // The probe is a run like any other: its own run directory (and lock) makes it the tool's for a
  // sweep, and its deadline label bounds it for the warden.
  const run_directory probe_dir(policy.spec->run_id());
  const std::chrono::seconds wall(sandbox::policy_constants::probe_wall_seconds);
  const std::chrono::seconds start(r.limits.start_seconds);
  container_run container(r.engine, policy.spec->container_name(), start + wall);
  docker_run_request req;
  req.arguments = policy.spec->docker_probe_arguments();
  req.wall = wall;
  req.start_allowance = start;
  req.output_cap_bytes = 4096;
  req.private_config_dir = probe_dir.docker_config_dir();  // its own gate: the run's is held meanwhile
  req.cancel = r.cancel;
  cgroup_monitor monitor(r.daemon.cgroup_version, r.daemon.cgroup_driver);
  container.launch(req);
  const completed_run done = container.run({}, monitor);
  if (done.outcome.interrupted_by) throw interrupted{done.outcome.interrupted_by};
  if (!done.removal) fail(sandbox::verdict::cleanup_failed, done.removal.error().what);
  if (done.outcome.reaper_lost)
    fail(sandbox::verdict::runtime_failed, "the gVisor probe's reaper process died, so the probe was stopped");
  if (!done.outcome.client_start) fail(sandbox::verdict::internal_error, done.outcome.client_start.error().what);
  if (done.outcome.timed_out || done.outcome.start_timed_out || done.outcome.client_ended_late || !done.state ||
      done.state->exit_code != 0)
    return probe_failure(done, r.limits.start_seconds);

  std::string release = done.outcome.stdout_bytes;
  while (!release.empty() && (release.back() == '\n' || release.back() == '\r')) release.pop_back();
  if (!safe_release(release)) return refusal{"the probe printed no kernel release", "check the image's python"};
  if (release == r.host_kernel)
    return refusal{
        "the runtime named runsc runs containers on the host kernel (" + r.host_kernel + "): it is not gVisor",
        "point the runsc entry in /etc/docker/daemon.json at the gVisor runsc binary and restart dockerd"};
  store_proof(proof_key(r), release, r.runtime_version);
  return gvisor_proof{release, false};
}

}  // namespace plb::runner
