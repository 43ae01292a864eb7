// SPDX-License-Identifier: Apache-2.0
// Files inside a directory the tool opened once (O_NOFOLLOW) and checked, always reached relative
// to its descriptor (fstatat, openat, renameat, unlinkat), as the run directory is: once the
// directory is checked, a path swapped above it or a symlink inside it cannot redirect a read or a
// write. Only regular files of the tool's own user are ever read: a symlink, FIFO, device,
// directory or a file of another user is described, never opened.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "support/file_io.hpp"
#include "support/problem.hpp"

namespace plb {

enum class entry_kind { absent, own_file, other };

struct dir_entry {
  entry_kind kind = entry_kind::absent;
  std::string what;  // for other: "a symbolic link", "owned by uid 1000", ...
};

// What `name` is, without following a symlink.
dir_entry probe_entry(int dir_fd, const std::string& name, uid_t owner);

// `name` opened for reading if it is a regular file of `owner` (O_PATH and fstat first: a FIFO
// never blocks, a device is never opened); otherwise the problem.
result<unique_fd> open_own_file(int dir_fd, const std::string& name, uid_t owner);

// The whole of such a file, at most `max_bytes`.
result<std::string> read_own_file(int dir_fd, const std::string& name, uid_t owner, std::size_t max_bytes);

// The SHA-256 (64 lowercase hex digits) of such a file, read as a stream.
result<std::string> digest_own_file(int dir_fd, const std::string& name, uid_t owner);

// The SHA-256 of everything left to read from `fd`, or the read's problem.
result<std::string> digest_of_fd(int fd);

// Writes `contents` to `name` through a dot-named temporary (mode 0600) and renameat(2), so a
// reader never sees half of it. `dir` names the directory in messages. Throws failure(internal_error).
void replace_file_at(int dir_fd, const std::string& dir, const std::string& name, const std::string& contents);

// The same, for a file written piece by piece (a batch's summary of 100,000 lines is never held
// whole): append() buffers up to 64 KiB before each write to the temporary, commit() fsyncs it and
// renames it to `name`. Until commit() the name keeps its old contents, and a replacement that is
// destroyed uncommitted (an exception while rendering) removes its temporary. Throws
// failure(internal_error).
class file_replacement {
 public:
  file_replacement(int dir_fd, std::string dir, std::string name);
  file_replacement(const file_replacement&) = delete;
  file_replacement& operator=(const file_replacement&) = delete;
  ~file_replacement();
  void append(std::string_view text);
  void commit();

 private:
  void flush();
  [[noreturn]] void fail_with(int err);
  int dir_fd_;
  std::string dir_, name_, tmp_, buffer_;
  unique_fd fd_;
};

// The directory `name` under `dir_fd`, created 0700 if missing, opened O_NOFOLLOW and checked by
// check_private_dir; otherwise the problem, which names `dir`/`name` (the caller names the field).
result<unique_fd> open_private_subdir(int dir_fd, const std::string& dir, const std::string& name);

// Why a directory with the status `st` is not the tool's to trust ("owned by uid 1000, not by this
// user (uid 0)", "writable by group or others (mode 0777)"), or "" when it is: owned by `owner`,
// not writable by group or others. The one rule for every directory whose contents the tool trusts
// or which it creates a directory in (private_dir.hpp).
std::string why_not_private(const struct stat& st, uid_t owner);

// Nothing when the directory open as `fd` is the tool's to trust: a real directory, owned by
// `owner`, not writable by group or others. Otherwise why not, with the fix (`path` in its words).
result<void> check_private_dir(int fd, const std::string& path, uid_t owner);

}  // namespace plb
