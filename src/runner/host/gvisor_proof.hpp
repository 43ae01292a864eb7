// SPDX-License-Identifier: Apache-2.0
// The proof that the runtime named runsc is gVisor: a probe container with every control, whose
// trusted interpreter prints the kernel release it sees. Under gVisor that is gVisor's own, never
// the host's. A proof is cached under /var/cache/plb-sandbox/gvisor-proof, keyed on everything that
// could change the answer (daemon ID and version, runsc's path, arguments and inode, the image,
// the host kernel), and is only trusted from a checked cache directory.
#pragma once

#include <optional>
#include <string>

#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "runner/engine/docker_engine.hpp"
#include "support/cancellation.hpp"

#include "runner/state/refusal.hpp"

namespace plb::runner {

inline constexpr const char* proof_subdir = "gvisor-proof";  // in state_dirs.hpp's cache_dir

// A check that failed: what was found, and what the operator does about it.
struct gvisor_proof {
  std::string guest_kernel;
  bool from_cache = false;
};

struct proof_request {
  const docker_engine& engine;
  const daemon_info& daemon;
  const runtime_entry& runtime;
  const sandbox::image_id& image;
  const sandbox::SandboxLimits& limits;
  const std::string& host_kernel;
  const std::string& runtime_version;
  const cancellation* cancel;
};

// The cached proof for this host, runsc and image, if one is stored.
std::optional<gvisor_proof> cached_proof(const proof_request& r);

// Runs the probe (storing the proof on success) or says why runsc is not gVisor.
host_result<gvisor_proof> prove_gvisor(const proof_request& r);

}  // namespace plb::runner
