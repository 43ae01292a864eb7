// SPDX-License-Identifier: Apache-2.0
#include "runner/state/state_dirs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace plb::runner {
namespace {

struct dir_spec {
  const char* path;
  mode_t mode;  // when created
};

constexpr dir_spec state_dirs[] = {{state_dir, 0755}, {runs_dir, 0700}, {cache_dir, 0700}};

std::string octal_mode(mode_t mode) {
  char m[8];
  std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(mode & 07777));
  return m;
}

// The directory's problem, if any: missing, not a real directory, not root's, or writable by
// group or others.
host_result<void> check_one(const dir_spec& d, bool create) {
  const std::string path = d.path;
  if (create && ::mkdir(d.path, d.mode) == 0) {
    // mkdir honours the umask; the mode is set explicitly, on the directory just made.
    const unique_fd fd(::open(d.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd) (void)::fchmod(fd.get(), d.mode);
  }
  struct stat st {};
  if (::lstat(d.path, &st) != 0)
    return refusal{path + " is missing (" + std::strerror(errno) + ")",
                   "run plb-sandbox as root once, or: install -d -o root -g root -m " +
                       std::string(d.mode == 0755 ? "755 " : "700 ") + path};
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
    return refusal{path + " is not a real directory (a symlink or another file)",
                   "remove it and let plb-sandbox create it: rm " + path};
  if (st.st_uid != 0)
    return refusal{path + " is owned by uid " + std::to_string(st.st_uid) + ", not root", "chown root:root " + path};
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return refusal{path + " is writable by group or others (mode " + octal_mode(st.st_mode) + ")",
                   "chmod go-w " + path};
  return {};
}

host_result<unique_fd> open_checked(const char* path) {
  unique_fd fd(::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  // The descriptor's own inode is checked again: the path cannot have been swapped meanwhile.
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return refusal{std::string(path) + " changed while it was being opened", "check who else writes there"};
  return fd;
}

}  // namespace

host_result<void> check_state_dirs(bool create) {
  for (const dir_spec& d : state_dirs)
    if (auto checked = check_one(d, create); !checked) return checked;
  return {};
}

namespace {

host_result<unique_fd> open_checked_state(const char* path) {
  if (auto checked = check_state_dirs(true); !checked) return checked.error();
  return open_checked(path);
}

}  // namespace

host_result<unique_fd> open_runs_dir() { return open_checked_state(runs_dir); }

host_result<unique_fd> open_state_dir() { return open_checked_state(state_dir); }

host_result<unique_fd> open_cache_dir(bool create) {
  if (auto checked = check_one(state_dirs[2], create); !checked) return checked.error();
  return open_checked(cache_dir);
}

}  // namespace plb::runner
