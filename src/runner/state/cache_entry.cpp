// SPDX-License-Identifier: Apache-2.0
#include "runner/state/cache_entry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/state/state_dirs.hpp"
#include "support/file_io.hpp"

namespace plb::runner {
namespace {

constexpr std::size_t max_entry_bytes = std::size_t{64} * 1024;

// The subdirectory, opened without following a link, if it is root's and nobody else can write it.
unique_fd open_subdir(const char* subdir, bool create) {
  const auto cache = open_cache_dir(create);
  if (!cache) return {};  // no cache: nothing is read or stored, which costs only time
  if (create) ::mkdirat(cache->get(), subdir, 0700);
  unique_fd dir(::openat(cache->get(), subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (dir && (::fstat(dir.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)) dir.reset();
  return dir;
}

}  // namespace

std::optional<std::string> read_cache_entry(const char* subdir, const std::string& name) {
  const unique_fd dir = open_subdir(subdir, false);
  if (!dir) return std::nullopt;
  const unique_fd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) return std::nullopt;
  auto r = read_up_to(fd.get(), max_entry_bytes);
  if (!r) return std::nullopt;  // a cache that cannot be read is a miss, whatever the reason
  return std::move(*r);
}

void store_cache_entry(const char* subdir, const std::string& name, const std::string& text) noexcept {
  try {
    const unique_fd dir = open_subdir(subdir, true);
    if (!dir) return;
    const std::string tmp = name + ".tmp." + std::to_string(::getpid());
    {
      const unique_fd out(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!out || !write_all(out.get(), text)) {
        ::unlinkat(dir.get(), tmp.c_str(), 0);
        return;
      }
    }
    if (::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0) ::unlinkat(dir.get(), tmp.c_str(), 0);
  } catch (...) {  // out of memory building a name: the cache is only an optimisation
  }
}

}  // namespace plb::runner
