// SPDX-License-Identifier: Apache-2.0
#include "support/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace plb {

void unique_fd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

namespace {

// Whether `fd` can be read as a regular file, and its size; otherwise why not.
result<std::size_t> regular_size(int fd) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return errno_problem(errno);
  if (!S_ISREG(st.st_mode)) return problem::says("not a regular file");
  return static_cast<std::size_t>(st.st_size);
}

}  // namespace

result<regular_file> open_regular_file(const std::string& path) {
  const unique_fd handle(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (const auto checked = regular_size(handle.get()); !checked) return checked.error();
  // O_NONBLOCK too: should the inode somehow not be a regular file after all, the open returns.
  const std::string self = "/proc/self/fd/" + std::to_string(handle.get());
  regular_file f{unique_fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)), 0};
  const auto size = regular_size(f.fd.get());
  if (!size) return size.error();
  f.size = *size;
  return f;
}

result<std::string> read_up_to(int fd, std::size_t max_bytes) {
  std::string data;
  // One byte past the limit is enough to know the file is too large. The buffer grows as the file
  // does: sizing it to the limit up front would touch every page of it (64 MiB for a manifest).
  const std::size_t cap = max_bytes + 1;
  data.resize(std::min<std::size_t>(cap, std::size_t{64} * 1024));
  std::size_t got = 0;
  while (got < cap) {
    if (got == data.size()) data.resize(std::min(cap, data.size() * 2));
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_problem(errno);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  // EFBIG marks the size: read(2) itself never fails with it.
  if (got > max_bytes) return problem("larger than " + std::to_string(max_bytes) + " bytes", EFBIG);
  data.resize(got);
  return data;
}

bool is_too_large(const problem& p) noexcept { return p.errno_value == EFBIG; }

result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  const auto f = open_regular_file(path);
  if (!f) return f.error();
  return read_up_to(f->fd.get(), max_bytes);
}

result<void> write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_problem(errno);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace plb
