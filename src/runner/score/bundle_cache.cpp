// SPDX-License-Identifier: Apache-2.0
#include "runner/score/bundle_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "runner/container/run_directory.hpp"
#include "runner/container/run_id.hpp"
#include "runner/score/bundle_walk.hpp"
#include "runner/state/state_dirs.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

namespace sb = sandbox;

constexpr const char* tree_name = "tree";
// A stamp is a line a file: bundle_files lines of at most bundle_path_bytes escaped (4 bytes a
// byte) and its numbers, within this.
constexpr std::size_t max_stamp_bytes = std::size_t{64} << 20;

std::string errno_words() { return std::strerror(errno); }

// bundles/ in the cache directory: made if missing, root's alone, reached through no symlink.
unique_fd open_bundles_dir() {
  const auto cache = open_cache_dir(true);
  if (!cache) fail(cache.error());
  const std::string path = std::string(cache_dir) + "/" + bundle_cache_subdir;
  if (::mkdirat(cache->get(), bundle_cache_subdir, 0700) != 0 && errno != EEXIST)
    fail(sb::verdict::host_refused, "cannot create the bundle cache " + path + ": " + errno_words());
  unique_fd dir(::openat(cache->get(), bundle_cache_subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) fail(sb::verdict::host_refused, "cannot open the bundle cache " + path + ": " + errno_words());
  struct stat st {};
  if (::fstat(dir.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 077) != 0)
    fail(sb::verdict::host_refused, "the bundle cache " + path +
                                        " is not root's alone (owner root, mode 0700): remove it and the next run "
                                        "makes it again (rm -rf " +
                                        path + ")");
  return dir;
}

std::optional<std::string> read_stamp(int entry_fd) {
  const unique_fd f(::openat(entry_fd, bundle_cache_stamp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!f) return std::nullopt;
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = ::read(f.get(), buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() + static_cast<std::size_t>(n) > max_stamp_bytes) return std::nullopt;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// Best effort, atomic: a stamp that cannot be written costs the next run a read, nothing more.
void write_stamp(int entry_fd, const std::string& text) noexcept {
  const std::string temp = std::string(bundle_cache_stamp) + "." + new_run_id();
  const unique_fd f(::openat(entry_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f) return;
  if (!write_all(f.get(), text) || ::renameat(entry_fd, temp.c_str(), entry_fd, bundle_cache_stamp) != 0)
    ::unlinkat(entry_fd, temp.c_str(), 0);
}

// The entry `hex` opened and share-locked, or none when there is none. Once the lock is held the
// name must still lead to the locked directory: an eviction renames an entry before removing it.
unique_fd hold_entry(int bundles_fd, const std::string& hex) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    unique_fd entry(::openat(bundles_fd, hex.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!entry) {
      if (errno == ENOENT) return {};
      fail(sb::verdict::internal_error, "cannot open the bundle cache's entry " + hex + ": " + errno_words());
    }
    while (::flock(entry.get(), LOCK_SH) != 0)
      if (errno != EINTR) fail(sb::verdict::internal_error, "cannot lock the bundle cache's entry: " + errno_words());
    struct stat held {
    }, named{};
    if (::fstat(entry.get(), &held) == 0 && ::fstatat(bundles_fd, hex.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      return entry;
  }
  fail(sb::verdict::internal_error, "the bundle cache's entry " + hex + " kept being evicted while it was opened");
}

// Removes the staging directory on every way out but its rename into place.
struct staging_dir {
  staging_dir(int bundles, std::string n) : bundles_fd(bundles), name(std::move(n)) {}
  staging_dir(const staging_dir&) = delete;
  staging_dir& operator=(const staging_dir&) = delete;
  ~staging_dir() {
    if (!placed) remove_cache_tree(bundles_fd, name);
  }
  int bundles_fd;
  std::string name;
  bool placed = false;
};

cached_bundle entry_result(const bundle_cache_request& r, std::uint64_t bytes, std::uint64_t files, bool copied,
                           bool read, unique_fd held) {
  cached_bundle c;
  c.snapshot = {bundle_cache_tree(r.expected), r.expected, bytes, files};
  c.copied = copied;
  c.read = read;
  c.held = std::move(held);
  ::futimens(c.held.get(), nullptr);  // its last use, for the eviction's order
  return c;
}

// A found entry: used as it is when the directory's stamp is the stored one, else once the
// directory is read and hashed to the reviewed digest again.
cached_bundle use_entry(const bundle_cache_request& r, const std::string& what, int root_fd,
                        const bundle_walker& stat_walk, unique_fd held) {
  const std::string stamp = stat_walk.source_stamp();
  if (read_stamp(held.get()) == stamp)
    return entry_result(r, stat_walk.bytes(), stat_walk.files(), false, false, std::move(held));
  bundle_walker w(r.limits, std::nullopt);
  if (auto walked = w.walk_dir(root_fd, "", -1); !walked)
    fail(bundle_refusal_verdict(walked.error()), what + ": " + walked.error().message());
  std::string renewed = w.source_stamp();
  const auto listing = sb::make_bundle_listing(w.take_files(), false);
  if (!listing) fail(sb::verdict::internal_error, what + ": SHA-256 computation failed");
  require_reviewed_digest(what, listing.listing.digest, r.expected, r.digest_field);
  write_stamp(held.get(), renewed);
  return entry_result(r, listing.listing.bytes, listing.listing.files, false, true, std::move(held));
}

// No entry: the snapshot's one pass into a staging directory, renamed into place once its digest
// is the reviewed one. None when another run's entry took the name first.
std::optional<cached_bundle> make_entry(const bundle_cache_request& r, const std::string& what, int root_fd,
                                        int bundles_fd, std::uint64_t incoming_bytes) {
  const std::string hex = r.expected.hex();
  const auto runs = open_runs_dir();
  evict_bundles(bundles_fd, r.bound_bytes, incoming_bytes, hex, runs ? runs->get() : -1);
  staging_dir staging(bundles_fd, std::string(bundle_staging_prefix) + r.run_id);
  if (::mkdirat(bundles_fd, staging.name.c_str(), 0700) != 0)
    fail(sb::verdict::internal_error, "cannot create the bundle cache's staging directory: " + errno_words());
  unique_fd entry(::openat(bundles_fd, staging.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  // Locked from birth: the rename keeps the directory, and with it the lock, so no eviction can
  // take the entry between its rename and its use.
  if (!entry || ::flock(entry.get(), LOCK_SH) != 0)
    fail(sb::verdict::internal_error, "cannot lock the bundle cache's staging directory: " + errno_words());
  const std::string staging_path = std::string(cache_dir) + "/" + bundle_cache_subdir + "/" + staging.name;
  const bundle_copy copy = copy_bundle(root_fd, what, r.expected, r.limits, {entry.get(), staging_path, tree_name},
                                       r.uid, r.gid, r.digest_field);
  write_stamp(entry.get(), copy.source_stamp);
  if (::renameat(bundles_fd, staging.name.c_str(), bundles_fd, hex.c_str()) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY) return std::nullopt;  // another run's copy is in place
    fail(sb::verdict::internal_error, "cannot place the bundle cache's entry: " + errno_words());
  }
  staging.placed = true;
  return entry_result(r, copy.snapshot.bytes, copy.snapshot.files, true, true, std::move(entry));
}

}  // namespace

std::string bundle_cache_tree(const sb::sha256_digest& digest) {
  return std::string(cache_dir) + "/" + bundle_cache_subdir + "/" + digest.hex() + "/" + tree_name;
}

cached_bundle take_cached_bundle(const bundle_cache_request& r) {
  const std::string what = bundle_named(r.bundle_field, r.bundle_dir);
  const auto root = open_bundle_root(r.bundle_dir);
  if (!root) fail(sb::verdict::input_refused, what + ": " + root.error().message());
  // Every check of the snapshot but the bytes', with no file opened: a bundle refused for what it
  // holds is refused before the cache is looked at.
  bundle_walker stat_walk(r.limits, std::nullopt, bundle_walk_reads::stat_only);
  if (auto walked = stat_walk.walk_dir(root->get(), "", -1); !walked)
    fail(bundle_refusal_verdict(walked.error()), what + ": " + walked.error().message());
  const unique_fd bundles = open_bundles_dir();
  const std::string hex = r.expected.hex();
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (unique_fd held = hold_entry(bundles.get(), hex))
      return use_entry(r, what, root->get(), stat_walk, std::move(held));
    if (auto made = make_entry(r, what, root->get(), bundles.get(), stat_walk.bytes())) return std::move(*made);
  }
  fail(sb::verdict::internal_error, "the bundle cache's entry " + hex + " kept changing");
}

}  // namespace plb::runner
