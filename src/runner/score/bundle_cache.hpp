// SPDX-License-Identifier: Apache-2.0
// The bundle cache: a bundle's verified copy, kept by its digest, so that verify, a second data set
// or a batch's next line mounts the copy the last run made instead of reading and copying the same
// bytes again (issue 42's optional cache).
//
// Theory of operation. The cache is /var/cache/plb-sandbox/bundles (state_dirs.hpp's cache_dir,
// checked as the gVisor proof's is: root's, writable by nobody else, no symlink), one entry a
// digest:
//
//   bundles/<sha256 hex>/tree     the copy a run mounts read-only at /sandbox/bundle (the snapshot's
//                                 own modes: bundle_snapshot.hpp)
//   bundles/<sha256 hex>/source   the source stamp (bundle_walk.hpp) of the directory it was last
//                                 read from: every file's device, inode, size, mtime and ctime
//
//  - An entry exists under its digest's name only once its every byte was hashed as it was copied
//    and the digest compared: it is made in bundles/.staging-<run id> and renamed into place after
//    the check, so the name is the proof. Nothing but this code writes there, and only root can.
//  - A run given a bundle always stats its directory first (names, types, links and bounds checked
//    as the snapshot checks them; no file opened). An entry whose stamp equals that stat is used
//    without reading a byte: the directory has not changed since its bytes were hashed. A stamp
//    that differs (a file touched, moved, added, or another directory with the same files) is
//    settled by reading and hashing the directory again, without copying: the reviewed digest, and
//    the entry is used and its stamp renewed; another digest, and the run is refused as ever.
//    Either way what the sandbox sees is the entry: bytes that were hashed to the reviewed digest.
//  - No entry: the snapshot's one pass (read, hash, copy) into the staging directory, then the
//    rename. Two runs that miss the same digest at once both copy; the second rename finds the
//    name taken, and that run drops its copy and uses the first.
//  - A run holds a shared flock on its entry's directory from before the container is created until
//    the run ends. Eviction takes the lock exclusively without waiting, so it never removes an
//    entry in use, and renames the entry away before removing it: a run that opened the entry
//    just before finds, once it holds the lock, that the name no longer leads to it, and looks
//    again.
//  - Bound: before a copy, entries not in use are evicted, least recently used first (a use sets
//    the entry directory's mtime), until the cache with the new copy holds at most
//    bundle_cache_mib. An entry in use may keep it over the bound until its run ends. A staging or
//    evicted directory left by a killed tool is removed by the next copy once its run is dead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/limits.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

inline constexpr const char* bundle_cache_subdir = "bundles";             // in state_dirs.hpp's cache_dir
inline constexpr std::uint64_t bundle_cache_mib = 8192;                   // the entries not in use, in all
inline constexpr const char* bundle_cache_stamp = "source";               // in an entry, beside its tree
inline constexpr std::string_view bundle_staging_prefix = ".staging-";    // + the run's ID
inline constexpr std::string_view bundle_evicting_prefix = ".evicting-";  // + a fresh ID

// Where the entry of `digest` keeps the tree a run mounts: the run's bundle path, known before
// anything is read, since only bytes with that digest are ever put there.
std::string bundle_cache_tree(const sandbox::sha256_digest& digest);

struct cached_bundle {
  bundle_snapshot snapshot;  // path: the entry's tree
  bool copied = false;       // this run made the entry (read, hashed and copied every byte)
  bool read = false;         // this run read and hashed the directory (false: its stamp matched)
  unique_fd held;            // the entry's shared lock: keep it until the run ends
};

struct bundle_cache_request {
  const std::string& bundle_dir;
  const sandbox::sha256_digest& expected;
  const sandbox::SandboxLimits& limits;
  const std::string& run_id;  // names the staging directory
  std::uint32_t uid;          // the sandbox user, who owns the copy
  std::uint32_t gid;
  const char* bundle_field;  // the caller's names, for messages (bundle_snapshot.hpp)
  const char* digest_field;
  std::uint64_t bound_bytes = bundle_cache_mib << 20;
};

// The reviewed bundle's entry, made or found (see above) and held. Throws failure(input_refused)
// for a bundle that is refused or is not the reviewed one, failure(host_refused) for a cache
// directory that is not safe or a copy that does not fit; nothing is left in the cache then.
cached_bundle take_cached_bundle(const bundle_cache_request& r);

// Evicts entries of the cache open as `bundles_fd`, least recently used first, none in use and
// never `keep_hex`, until what stays plus `incoming_bytes` is at most `bound_bytes`; removes the
// staging and evicted directories of runs that are dead (probed in the runs directory
// `runs_fd`). The bytes the cache then holds.
std::uint64_t evict_bundles(int bundles_fd, std::uint64_t bound_bytes, std::uint64_t incoming_bytes,
                            const std::string& keep_hex, int runs_fd);

// Removes `name` and all under it from the directory open as `dir_fd`; errors are ignored (what
// stays is tidied by the next eviction pass).
void remove_cache_tree(int dir_fd, const std::string& name) noexcept;

}  // namespace plb::runner
