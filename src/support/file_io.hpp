// SPDX-License-Identifier: Apache-2.0
// The tool's file helpers, so every unit opens, reads and writes files the same way.
//
// Operator-named files (--model, --data, the docker CLI config) are opened with O_PATH first and
// checked with fstat before any real open: a FIFO would block the open forever, and a device
// node must never be opened as root just to be refused. Only a regular file is then reopened,
// through /proc/self/fd, which names exactly the inode that was checked.
#pragma once

#include <cstddef>
#include <optional>
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

enum class open_error { none, system, not_regular };

struct opened_file {
  unique_fd fd;
  open_error error = open_error::none;
  int errno_value = 0;  // with open_error::system
  std::size_t size = 0;
  explicit operator bool() const noexcept { return error == open_error::none; }
};

// Opens `path` for reading only if it is a regular file; never blocks and never opens anything
// else (FIFOs, sockets, devices, directories are refused from an O_PATH descriptor).
opened_file open_regular_file(const std::string& path) noexcept;

// "not a regular file" or strerror: the reason for a failed open_regular_file, for messages.
std::string describe(const opened_file& f);

enum class read_error { none, system, too_large };

struct read_result {
  std::string data;
  read_error error = read_error::none;
  int errno_value = 0;
  explicit operator bool() const noexcept { return error == read_error::none; }
};

// Reads at most `max_bytes` (one byte more means too_large), retrying EINTR.
read_result read_up_to(int fd, std::size_t max_bytes);

// A small regular file (cgroup counters, caches, configuration), at most `max_bytes`; nullopt if
// it cannot be opened, is not a regular file, or is larger.
std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes = std::size_t{64} * 1024);

// Writes all of `data` to `fd`, retrying short writes and EINTR.
result<void> write_all(int fd, std::string_view data);

}  // namespace plb
