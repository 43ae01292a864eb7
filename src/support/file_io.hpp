// SPDX-License-Identifier: Apache-2.0
// The tool's file helpers, so every unit opens, reads and writes files the same way.
//
// Operator-named files (the script, the data, the docker CLI config) are opened with O_PATH first and
// checked with fstat before any real open: a FIFO would block the open forever, and a device
// node must never be opened as root just to be refused. Only a regular file is then reopened,
// through /proc/self/fd, which names exactly the inode that was checked.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "support/problem.hpp"

namespace plb {

// Owns one file descriptor.
class unique_fd {
 public:
  unique_fd() noexcept = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

// A regular file opened for reading, and its size when it was checked.
struct regular_file {
  unique_fd fd;
  std::size_t size = 0;
};

// Opens `path` for reading only if it is a regular file; never blocks and never opens anything
// else (FIFOs, sockets, devices, directories are refused from an O_PATH descriptor). Otherwise why
// not: "not a regular file" (no errno), or the system's reason with its errno.
result<regular_file> open_regular_file(const std::string& path);

// Reads at most `max_bytes` (one byte more is too large: see is_too_large), retrying EINTR.
result<std::string> read_up_to(int fd, std::size_t max_bytes);

// A read_up_to problem that is the size, not the system: "larger than N bytes", with EFBIG.
bool is_too_large(const problem& p) noexcept;

// The bytes the tool reads from files it does not hold open (cgroup counters, caches, the docker
// CLI's configuration): at most this, unless the caller says otherwise.
inline constexpr std::size_t small_file_bytes = std::size_t{64} * 1024;

// A whole regular file of at most `max_bytes`, opened as open_regular_file opens it; otherwise
// why not ("not a regular file", the system's reason, or too large).
result<std::string> read_file(const std::string& path, std::size_t max_bytes = small_file_bytes);

// Writes all of `data` to `fd`, retrying short writes and EINTR.
result<void> write_all(int fd, std::string_view data);

}  // namespace plb
