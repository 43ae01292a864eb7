// SPDX-License-Identifier: Apache-2.0
// What the daemon's runsc is: its release (from `runsc --version`) and the gVisor platform the
// daemon's runtime arguments select. Pure functions, unit-tested, besides the ones that run or
// read the binary.
//
// The identity is cached beside the gVisor proof (cache_entry.hpp, subdirectory runsc-identity),
// keyed by everything that would change it: the daemon's runtime entry (path and arguments) and
// the binary's device, inode, size, mtime and ctime. Any write to the file or its metadata moves
// its ctime, which no unprivileged call can set back, and a replaced file has a new inode; the
// binary's SHA-256 is taken once, when the entry is made, and kept in it. Hashing it on every run
// (30 MB, 25-75 ms here) would cost more than the `runsc --version` the cache saves.
#pragma once

#include <string>
#include <vector>

#include "runner/engine/engine_json.hpp"

namespace plb::runner {

// The oldest gVisor release accepted: the first Debian ships with systrap as its default platform,
// and the one the host task budget (SandboxLimits::host_runtime_tasks) was measured on.
inline constexpr const char* min_runsc_release = "20240729";
inline constexpr const char* required_platform = "systrap";
inline constexpr const char* identity_subdir = "runsc-identity";  // in state_dirs.hpp's cache_dir

// gVisor's release date from `runsc --version` ("runsc version 0.0~20240729.0"); empty if none.
std::string runsc_release(const std::string& version_line);

// The platform the runtime arguments select (--platform=X or --platform X); runsc's own default,
// systrap, when none is given (it has been since well before the oldest release accepted).
std::string runsc_platform(const std::vector<std::string>& runtime_args);

// The first line of `<path> --version`. Throws failure(host_refused) if it cannot be run.
std::string runtime_version(const std::string& runtime_path);

// "device:inode:size:mtime:ctime" of the file at `path` (nanoseconds for the times); empty when
// it cannot be stat'ed. What the caches key a binary by.
std::string binary_identity(const std::string& path);

struct runsc_identity {
  std::string version;   // first line of `runsc --version`
  std::string release;   // runsc_release(version)
  std::string platform;  // runsc_platform(the entry's arguments)
  std::string sha256;    // of the binary, when the identity was taken ("" if it could not be hashed: never cached)
  bool from_cache = false;
};

// The identity of the daemon's runsc entry: from the cache when it was made for this entry and
// this binary, else by running `<path> --version` and hashing the binary (then stored). Throws
// failure(host_refused) if the binary cannot be run.
runsc_identity identify_runsc(const runtime_entry& runtime);

}  // namespace plb::runner
