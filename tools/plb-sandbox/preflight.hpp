// Host preflight, before anything runs: the local daemon only, a Linux daemon, the runsc runtime
// registered and proven to be gVisor, the resource controllers the limits need, and the runtime
// image present locally (never pulled) with no declared volumes and both interpreters in it.
//
// The checks are one list: sandbox-score stops at the first failure (host_refused, with what is
// wrong and how to fix it); `doctor` runs them all and prints the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cancellation.hpp"
#include "docker_engine.hpp"
#include "engine_json.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::tool {

inline constexpr const char* proof_subdir = "gvisor-proof";  // in state_dirs.hpp's cache_dir
inline constexpr const char* proof_cache_dir = "/var/cache/plb-sandbox/gvisor-proof";
// The oldest gVisor release accepted: the first Debian ships with systrap as its default platform,
// and the one the host task budget (SandboxLimits::host_runtime_tasks) was measured on.
inline constexpr const char* min_runsc_release = "20240729";

struct host_facts {
  daemon_info daemon;
  std::string runtime_path;
  std::string runtime_version;  // first line of `runsc --version`
  std::string runtime_release;  // its release date, "20240729"
  std::string runtime_platform; // from the daemon's runtime arguments, "systrap"
  std::string guest_kernel;     // the release a sandboxed process sees
  std::string host_kernel;
  bool proof_from_cache = false;
};

enum class check_status { pass, fail, skipped };

struct check_result {
  std::string requirement;
  check_status status = check_status::skipped;
  std::string detail;  // what was found
  std::string fix;     // for a failure: what the operator does about it
};

// Runs the checks in order. With stop_at_first_failure, the list ends at the first failure.
// Without an image, the image checks and the gVisor proof (which runs the image) are skipped;
// without allow_probe, the proof is taken only from the cache (nothing is started).
// `cancel` (may be null) stops the gVisor probe.
std::vector<check_result> inspect_host(const docker_engine& engine, const std::optional<sandbox::image_id>& image,
                                       const sandbox::SandboxLimits& limits, const std::string& work_dir,
                                       const cancellation* cancel, bool stop_at_first_failure, bool allow_probe,
                                       host_facts& facts);

// sandbox-score's preflight: throws failure(host_refused) at the first failed check.
host_facts preflight(const docker_engine& engine, const sandbox::image_id& image, const sandbox::SandboxLimits& limits,
                     const std::string& work_dir, const cancellation& cancel);

}  // namespace plb::tool
