// SPDX-License-Identifier: Apache-2.0
// The bundle snapshot: the script's snapshot (snapshot.hpp) for a directory of files.
//
// Theory of operation. The host never imports, unpickles or parses a bundle byte: it only walks,
// reads, hashes and copies. One pass over the operator's directory:
//
//  - The walk holds a descriptor for each directory it is in and reaches every entry relative to
//    it. Each entry's name is checked first (printable UTF-8, within bundle_path_bytes and
//    bundle_depth: plb/sandbox/bundle_listing.hpp), then fstatat(AT_SYMLINK_NOFOLLOW) says what it
//    is. Only directories and regular files pass: a symbolic link, a FIFO, a device or a socket is
//    refused by that stat and never opened; a regular file with a link count above one (a hard
//    link, to /etc/shadow say) is refused too.
//  - A directory is opened with openat(O_DIRECTORY | O_NOFOLLOW): one swapped for a symbolic link
//    after its stat fails there (ELOOP or ENOTDIR), one swapped for another directory fails the
//    device and inode comparison with that stat. Either is refused, never followed.
//  - A regular file is opened O_PATH | O_NOFOLLOW, checked with fstat against the walk's stat
//    (device, inode, still regular, link count one), and only then reopened for reading through
//    /proc/self/fd: a device swapped in meanwhile is never opened. Its size is charged to
//    bundle_mib before a byte is read (a sparse file claiming 1 TB is refused unread), and the
//    entries (regular files and directories together) to bundle_files.
//  - Each file is read once through one 1 MiB buffer, hashed as it is read and, for a snapshot,
//    written to the private copy in the same loop: the host's memory does not grow with the bundle,
//    only with the number of files (each file's path, size and digest are held until the listing is
//    sorted, bounded by bundle_files and bundle_path_bytes). A file that yields more or fewer bytes
//    than its size, or whose size, mtime or ctime differ after the read, changed while it was read
//    and is refused.
//  - The free space of the copy's file system is checked as the copy goes: before each
//    file is copied, its size must fit in what is free, less a reserve. The bundle's total is
//    bounded beforehand by bundle_mib only.
//  - The listing is sorted and hashed (bundle_listing.hpp), and its digest compared in constant
//    time with the reviewed one before anything else happens: the caller starts no container until
//    take_bundle_snapshot has returned.
//
// The private copy is <run directory>/bundle, or a run's entry in the bundle cache
// (bundle_cache.hpp): directories 0500 and files 0400, all owned by the sandbox user; an empty
// directory is not copied (it is not in the listing either). On a refusal the partial copy is
// removed at once.
#pragma once

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <string>

#include "plb/sandbox/bundle_listing.hpp"
#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/verdict.hpp"
#include "runner/container/run_directory.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

// Why a bundle was refused: its kind, the entry's path (relative to the bundle, escaped by
// escape_bundle_path; empty for the bundle's directory itself) and what was wrong, in words.
struct bundle_error {
  enum class kind : std::uint8_t {
    not_a_directory,  // the bundle's own path
    not_regular,      // a symbolic link, FIFO, device, socket
    hard_link,        // a regular file with more than one link
    bad_name,         // not printable UTF-8, or "." / ".."
    too_long,         // a path over bundle_path_bytes
    too_deep,         // over bundle_depth
    too_many,         // over bundle_files
    too_large,        // over bundle_mib
    changed,          // swapped, grown, shrunk or written while it was walked or read
    no_space,         // the copy does not fit in its file system
    copy_failed,      // the private copy could not be written (the host's fault, not the bundle's)
    system,           // the system's reason (errno_value)
  };
  kind what = kind::system;
  std::string path;  // escaped
  std::string detail;
  int errno_value = 0;

  // "<path>: <detail>", or the detail alone for the bundle's directory.
  std::string message() const;
};

// The verdict of a refused walk or copy: the bundle's fault (input_refused), the host's room
// (host_refused), or the tool's copy (internal_error).
sandbox::verdict bundle_refusal_verdict(const bundle_error& e) noexcept;

// For result<T, bundle_error>::value(): the error leaves as a std::runtime_error with message().
[[noreturn]] void throw_exception_from_error(const bundle_error& e, const boost::source_location& where);

template <class T>
using bundle_result = boost::system::result<T, bundle_error>;

// The bundle's listing and digest, read without copying anything: every check above but the free
// space. `keep_text` keeps the listing's text (bundle-digest --list). Never throws failure.
bundle_result<sandbox::bundle_listing> digest_bundle(const std::string& bundle_dir,
                                                     const sandbox::SandboxLimits& limits, bool keep_text = false);

// The bundle's own directory, reached through no symbolic link on its path: opened once, walked by
// every pass a run makes over it.
bundle_result<unique_fd> open_bundle_root(const std::string& bundle_dir);

// "<field> <escaped path>": how every refusal names the bundle at `bundle_dir` (field: the caller's
// name for it, "--bundle" or "bundle").
std::string bundle_named(const char* bundle_field, const std::string& bundle_dir);

// Throws failure(input_refused) unless `got` is `expected` (compared in constant time): the message
// names the bundle as `named` (bundle_named), both digests and the reviewed digest's field. The one
// check a run's snapshot and explain's walk make before anything runs.
void require_reviewed_digest(const std::string& named, const sandbox::sha256_digest& got,
                             const sandbox::sha256_digest& expected, const char* digest_field);

// The name of the private copy in the run directory.
inline constexpr const char* bundle_copy_name = "bundle";

struct bundle_snapshot {
  std::string path;  // the private copy's root directory in the run directory
  sandbox::sha256_digest digest;
  std::uint64_t bytes = 0;
  std::uint64_t files = 0;
};

// Where a copy goes: the directory `name` (made here) in the directory open as `parent_fd`, at
// `parent_path`; its file system's free space is the copy's bound.
struct bundle_copy_place {
  int parent_fd;
  std::string parent_path;
  std::string name;
};

struct bundle_copy {
  bundle_snapshot snapshot;
  std::string source_stamp;  // bundle_walk.hpp's, of the files as they were read
};

// The bundle open as `root_fd` (named `what` in messages: bundle_named), copied to `place` and held
// to `expected` before this returns; the throws of take_bundle_snapshot below.
bundle_copy copy_bundle(int root_fd, const std::string& what, const sandbox::sha256_digest& expected,
                        const sandbox::SandboxLimits& limits, const bundle_copy_place& place, std::uint32_t uid,
                        std::uint32_t gid, const char* digest_field);

// The bundle at `bundle_dir`, copied into `dir` (see above) and held to `expected`. Throws
// failure(input_refused) with a message naming `bundle_field` (and, for a digest mismatch,
// `digest_field`): the caller's names, e.g. "--bundle" / "--bundle-sha256" or "bundle" /
// "bundle_sha256"; failure(host_refused) when the copy cannot be handed to the sandbox user.
bundle_snapshot take_bundle_snapshot(const std::string& bundle_dir, const sandbox::sha256_digest& expected,
                                     const sandbox::SandboxLimits& limits, const run_directory& dir, std::uint32_t uid,
                                     std::uint32_t gid, const char* bundle_field, const char* digest_field);

}  // namespace plb::runner
