// SPDX-License-Identifier: Apache-2.0
// The bundle cache's eviction and tidying (bundle_cache.hpp has the theory of operation).
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "runner/container/run_directory.hpp"
#include "runner/container/run_id.hpp"
#include "runner/score/bundle_cache.hpp"

namespace plb::runner {
namespace {

bool is_digest_name(const std::string& s) noexcept {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The bytes an entry holds, from its stamp's first line ("bytes N files M"); none for an entry
// without a readable stamp.
std::optional<std::uint64_t> stamped_bytes(int bundles_fd, const std::string& name) {
  const unique_fd stamp(
      ::openat(bundles_fd, (name + "/" + bundle_cache_stamp).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  char head[64] = {};
  if (!stamp || ::read(stamp.get(), head, sizeof head - 1) < 7) return std::nullopt;
  const std::string_view text(head);
  if (!text.starts_with("bytes ")) return std::nullopt;
  std::uint64_t n = 0;
  for (std::size_t i = 6; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
    n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
  return n;
}

// Removes a cache entry nobody holds, renamed away first; false when it is in use or gone.
bool try_evict(int bundles_fd, const std::string& name) {
  const unique_fd entry(::openat(bundles_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!entry || ::flock(entry.get(), LOCK_EX | LOCK_NB) != 0) return false;
  struct stat held {
  }, named{};
  if (::fstat(entry.get(), &held) != 0 || ::fstatat(bundles_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
      held.st_ino != named.st_ino || held.st_dev != named.st_dev)
    return false;
  const std::string away = std::string(bundle_evicting_prefix) + new_run_id();
  if (::renameat(bundles_fd, name.c_str(), bundles_fd, away.c_str()) != 0) return false;
  remove_cache_tree(bundles_fd, away);
  return true;
}

std::vector<std::string> names_in(int dir_fd) {
  std::vector<std::string> names;
  const int dup = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return names;
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    ::close(dup);
    return names;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

}  // namespace

void remove_cache_tree(int dir_fd, const std::string& name) noexcept {
  std::error_code ec;  // a path under the directory open as `dir_fd`, whatever its own path is
  std::filesystem::remove_all("/proc/self/fd/" + std::to_string(dir_fd) + "/" + name, ec);
}

std::uint64_t evict_bundles(int bundles_fd, std::uint64_t bound_bytes, std::uint64_t incoming_bytes,
                            const std::string& keep_hex, int runs_fd) {
  struct entry {
    std::string name;
    std::uint64_t bytes;
    struct timespec used;
  };
  std::vector<entry> entries;
  std::uint64_t total = 0;
  for (const std::string& name : names_in(bundles_fd)) {
    for (const std::string_view prefix : {bundle_staging_prefix, bundle_evicting_prefix}) {
      // A killed tool's leftovers: its run is gone (an evicted directory's name is no run's).
      if (runs_fd >= 0 && name.starts_with(prefix) &&
          probe_run(runs_fd, name.substr(prefix.size())) != run_liveness::alive)
        remove_cache_tree(bundles_fd, name);
    }
    if (!is_digest_name(name)) continue;
    struct stat st {};
    if (::fstatat(bundles_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const auto bytes = stamped_bytes(bundles_fd, name);
    // An entry without a stamp cannot be weighed: it goes first, when it is not in use.
    entries.push_back({name, bytes.value_or(0), bytes ? st.st_mtim : timespec{}});
    total += bytes.value_or(0);
  }
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec : a.used.tv_nsec < b.used.tv_nsec;
  });
  for (const entry& e : entries) {
    const bool weighed = e.used.tv_sec != 0 || e.used.tv_nsec != 0;
    if (weighed && total + incoming_bytes <= bound_bytes) break;
    if (e.name == keep_hex) continue;
    if (try_evict(bundles_fd, e.name)) total -= e.bytes;
  }
  return total;
}

}  // namespace plb::runner
