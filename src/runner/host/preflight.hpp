// SPDX-License-Identifier: Apache-2.0
// Host preflight, before anything runs: safe state directories, the local daemon only, a Linux
// daemon, the runsc runtime registered, current and on systrap, proven to be gVisor, the resource
// controllers the limits need, and the runtime image present locally (never pulled) with no
// declared volumes and both interpreters in it.
//
// The checks are one table (host_checks.cpp): sandbox-score stops at the first failure
// (host_refused, with what is wrong and how to fix it); `doctor` and `explain` run them all and
// print the same rendering.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "runner/engine/docker_engine.hpp"
#include "support/cancellation.hpp"

namespace plb::runner {

struct host_facts {
  daemon_info daemon;
  runtime_entry runtime;         // the daemon's runsc entry (path made absolute)
  std::string runtime_version;   // first line of `runsc --version`
  std::string runtime_release;   // its release date, "20240729"
  std::string runtime_platform;  // from the daemon's runtime arguments, "systrap"
  std::string runtime_sha256;    // of the binary, when its identity was taken (runsc_identity.hpp)
  bool identity_from_cache = false;
  std::string guest_kernel;  // the release a sandboxed process sees
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

enum class inspect_mode {
  preflight,  // sandbox-score: stop at the first failure; the gVisor proof may start a probe
  doctor,     // every check; the proof may start a probe
  explain,    // every check; the proof only from the cache: nothing is started
};

struct host_inspection {
  const docker_engine& engine;
  const std::optional<sandbox::image_id>& image;  // without one, the image checks and the proof are skipped
  const sandbox::SandboxLimits& limits;
  const cancellation* cancel;  // stops the probe; may be null
  inspect_mode mode;
  labelled_list* sweep_list = nullptr;  // if set, the daemon is asked for it with the checks' questions
};

std::vector<check_result> inspect_host(const host_inspection& what, host_facts& facts);

// sandbox-score's preflight: throws failure(host_refused) at the first failed check. With
// `sweep_list`, the sweep's question is asked alongside the checks' (see sweep_orphans).
host_facts preflight(const docker_engine& engine, const sandbox::image_id& image, const sandbox::SandboxLimits& limits,
                     const cancellation& cancel, labelled_list* sweep_list = nullptr);

// The check list as doctor and explain print it: one line per check, and a fix line under a failure.
std::vector<std::string> render_checks(const std::vector<check_result>& checks);

}  // namespace plb::runner
