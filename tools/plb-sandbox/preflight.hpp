// Host preflight, before anything runs: the local daemon only, a Linux daemon, the runsc runtime
// registered and proven to be gVisor, the resource controllers the limits need, and the runtime
// image present locally (never pulled) with no declared volumes and both interpreters in it.
// Every refusal is a failure(host_refused) that says what is wrong and how to fix it.
#pragma once

#include <string>

#include "docker_engine.hpp"
#include "engine_json.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::tool {

inline constexpr const char* proof_cache_dir = "/var/cache/plb-sandbox/gvisor-proof";

struct host_facts {
  daemon_info daemon;
  std::string runtime_path;
  std::string runtime_version;  // first line of `runsc --version`
  std::string guest_kernel;     // the release a sandboxed process sees
  std::string host_kernel;
  bool proof_from_cache = false;
};

// `work_dir` is the run's private directory (the probe's docker client keeps its config there).
host_facts preflight(const docker_engine& engine, const sandbox::image_id& image,
                     const sandbox::SandboxLimits& limits, const std::string& work_dir);

// The checks that need no daemon: DOCKER_HOST, DOCKER_CONTEXT and the CLI's current context.
void check_local_daemon_only();

}  // namespace plb::tool
