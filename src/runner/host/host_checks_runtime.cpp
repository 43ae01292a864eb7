// SPDX-License-Identifier: Apache-2.0
// The host checks about the runsc runtime and the reviewed image: their slice of the table, beside their functions
// (host_check_steps.hpp declares the slices; host_checks.cpp runs them in order).
#include <unistd.h>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/host/host_check_steps.hpp"
#include "runner/host/runsc_identity.hpp"

namespace plb::runner::checks {
namespace {

host_result<std::string> runsc_registered(check_context& c) {
  const auto rt = c.facts.daemon.runtimes.find(std::string(sandbox::policy_constants::runtime));
  if (rt == c.facts.daemon.runtimes.end())
    return refusal{
        "the daemon has no runsc runtime",
        "install gVisor and register it in /etc/docker/daemon.json (\"runtimes\": {\"runsc\": {\"path\": "
        "\"/usr/bin/runsc\", \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"]}}), then restart dockerd"};
  c.facts.runtime = rt->second;
  if (c.facts.runtime.path.empty()) c.facts.runtime.path = std::string(sandbox::policy_constants::runtime);
  const std::string& path = c.facts.runtime.path;
  if (path.front() != '/')
    return refusal{"the runsc runtime path \"" + path + "\" is not absolute", "give its full path in daemon.json"};
  if (::access(path.c_str(), X_OK) != 0)
    return refusal{"the runsc runtime binary " + path + " is missing or not executable", "reinstall runsc"};
  return path;
}

host_result<std::string> runsc_release_check(check_context& c) {
  host_facts& f = c.facts;
  const runsc_identity id = identify_runsc(f.runtime);  // cached: no exec while the binary is the same
  f.runtime_version = id.version;
  f.runtime_sha256 = id.sha256;
  f.identity_from_cache = id.from_cache;
  if (f.runtime_version.find("runsc") == std::string::npos)
    return refusal{f.runtime.path + " --version does not report runsc", "point the runsc runtime at gVisor's binary"};
  f.runtime_release = id.release;
  f.runtime_platform = id.platform;
  if (f.runtime_release.empty() || f.runtime_release < min_runsc_release)
    return refusal{"runsc " + (f.runtime_release.empty() ? f.runtime_version : f.runtime_release) +
                       " is older than the oldest gVisor plb-sandbox supports (" + min_runsc_release + ")",
                   "install runsc " + std::string(min_runsc_release) +
                       " or later (Debian 12: apt-get install -t bookworm-backports runsc; or run "
                       "plb-sandbox-setup-host / ci/host/setup-host)"};
  if (f.runtime_platform != required_platform)
    return refusal{"the runsc runtime uses gVisor's " + f.runtime_platform +
                       " platform; the limits (host task budget, timings) are measured on systrap",
                   "set \"runtimeArgs\": [\"--network=none\", \"--platform=systrap\"] for runsc in "
                   "/etc/docker/daemon.json, then restart dockerd"};
  return f.runtime_release + " on " + f.runtime_platform + (f.identity_from_cache ? " (cached identity)" : "");
}

host_result<std::string> image_is_present(check_context& c) {
  const sandbox::image_id& image = *c.what.image;
  // Asked by daemon_answers, which this row needs.
  auto found = c.answers.image.valid() ? c.answers.image.get() : c.what.engine.inspect_image(image);
  if (!found) return refusal{found.error().message(), "check dockerd"};
  if (!*found)
    return refusal{"image " + image.str() + " is not present locally (it is never pulled)",
                   "build or pull it explicitly, review it, and pass the ID from `docker image inspect NAME --format "
                   "'{{.Id}}'`"};
  if ((*found)->id != image.str())
    return refusal{"the daemon resolved " + image.str() + " to " + (*found)->id, "give the full image ID"};
  c.image = std::move(**found);
  return image.str();
}

host_result<std::string> image_has_no_volumes(check_context& c) {
  if (c.image->has_volumes)
    return refusal{"image " + c.what.image->str() + " declares volumes, which would add mounts",
                   "rebuild it without VOLUME"};
  return "none declared";
}

host_result<std::string> runsc_is_gvisor(check_context& c) {
  host_facts& f = c.facts;
  const proof_request r{c.what.engine, f.daemon,      f.runtime,         *c.what.image,
                        c.what.limits, f.host_kernel, f.runtime_version, c.what.cancel};
  gvisor_proof proof;
  if (auto cached = cached_proof(r)) {
    proof = *cached;
  } else if (c.what.mode == inspect_mode::explain) {
    c.skipped = "proving it starts a container; sandbox-score and doctor do";
    return std::string();
  } else if (auto proved = prove_gvisor(r); proved) {
    proof = std::move(*proved);
  } else {
    return proved.error();
  }
  f.guest_kernel = proof.guest_kernel;
  f.proof_from_cache = proof.from_cache;
  return f.runtime_version + "; guest kernel " + f.guest_kernel + ", host " + f.host_kernel +
         (f.proof_from_cache ? " (cached proof)" : "");
}

}  // namespace

const host_check runtime_table[] = {
    {"runsc registered", daemon, runsc_entry, runsc_registered},
    {"runsc release", runsc_entry, runsc_ok, runsc_release_check},
    {"image present", daemon | image_given, image_present, image_is_present},
    {"image has no volumes", image_present, nothing, image_has_no_volumes},
    {"runsc is gVisor", image_present | runsc_ok, nothing, runsc_is_gvisor},
};
const std::span<const host_check> runtime_checks{runtime_table};

}  // namespace plb::runner::checks
