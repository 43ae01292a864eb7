// SPDX-License-Identifier: Apache-2.0
// The tool's state directories. Everything a run trusts passes through them (the script snapshot
// that becomes the container's only mount, the gVisor proof cache), so each must be a real
// directory (not a symlink), owned by root and writable by nobody else: otherwise another local
// user could swap the snapshot after its digest was checked, or plant a proof. In state/, below
// the container's life (the run directory, the reaper, the CPU leases) and the host checks, which
// both use them.
#pragma once

#include <optional>
#include <string>

#include "runner/state/refusal.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

inline constexpr const char* state_dir = "/var/lib/plb-sandbox";
inline constexpr const char* runs_dir = "/var/lib/plb-sandbox/runs";
inline constexpr const char* cache_dir = "/var/cache/plb-sandbox";
// Where ci/host/setup-host (and plb-sandbox-setup-host) record the reviewed image's ID; the tool itself
// never reads it (it takes --runtime-image), the tests and scripts do.
inline constexpr const char* runtime_image_id_file = "/var/lib/plb-sandbox/runtime-image.id";

// Checks the three directories; with `create`, first creates any that is missing (0755 for the
// state directory, 0700 for runs/ and the cache, whatever the umask). A refusal names the
// directory, what is wrong with it and the command that mends it.
host_result<void> check_state_dirs(bool create);

// Each directory opened with O_NOFOLLOW after check_state_dirs(true) (the cache's after its own
// check, with `create` as given), or the refusal with its fix. A run cannot go on without runs/
// or the state directory (the batch key's), so their callers end it (fail(refusal)); without the
// cache a proof is simply neither read nor stored.
host_result<unique_fd> open_runs_dir();
host_result<unique_fd> open_state_dir();
host_result<unique_fd> open_cache_dir(bool create);

}  // namespace plb::runner
