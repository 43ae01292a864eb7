// SPDX-License-Identifier: Apache-2.0
#include "support/no_symlinks.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "plb/sandbox/digest.hpp"

namespace plb {
namespace {

problem why(int e) { return e == ELOOP ? problem(no_symlink_words, ELOOP) : errno_problem(e); }

// openat2 with RESOLVE_NO_SYMLINKS: ELOOP at a link on any component; ENOSYS on a kernel before 5.6
// (or where a seccomp filter hides the call).
result<unique_fd> open_with_openat2(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
  if (fd < 0) return problem(why(errno));
  return unique_fd(static_cast<int>(fd));
}

// One component at a time, relative to the last: O_PATH | O_NOFOLLOW opens a link itself rather
// than what it names, and fstat then says it is one.
result<unique_fd> open_by_walk(const std::string& path) {
  if (path.empty()) return why(ENOENT);
  unique_fd at(::open(path.front() == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at) return why(errno);
  for (std::size_t begin = 0; begin < path.size();) {
    std::size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    const std::string name = path.substr(begin, end - begin);
    begin = end + 1;
    if (name.empty()) continue;  // a leading or doubled slash
    unique_fd next(::openat(at.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!next || ::fstat(next.get(), &st) != 0) return why(errno);
    if (S_ISLNK(st.st_mode)) return why(ELOOP);
    if (end < path.size() && !S_ISDIR(st.st_mode)) return why(ENOTDIR);
    at = std::move(next);
  }
  return at;
}

}  // namespace

result<unique_fd> open_path_no_symlinks(const std::string& path, symlink_resolver how) {
  if (how == symlink_resolver::best) {
    auto fd = open_with_openat2(path);
    if (fd || fd.error().errno_value != ENOSYS) return fd;
  }
  return open_by_walk(path);
}

result<regular_file> open_bounded_file(const std::string& path, std::size_t max_bytes, symlink_resolver how) {
  const auto handle = open_path_no_symlinks(path, how);
  if (!handle) return handle.error();
  struct stat st {};
  if (::fstat(handle->get(), &st) != 0) return errno_problem(errno);
  if (!S_ISREG(st.st_mode)) return problem::says("not a regular file");
  // By its size, before a byte is read: a planted 1 GiB (sparse) file costs nothing.
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return problem(std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) + " it may have",
                   EFBIG);
  // The checked inode itself, reopened for reading (O_NONBLOCK: never a wait, whatever it is).
  const std::string self = "/proc/self/fd/" + std::to_string(handle->get());
  regular_file f{unique_fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)), 0};
  if (!f.fd) return errno_problem(errno);
  f.size = static_cast<std::size_t>(st.st_size);
  return f;
}

result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes) {
  const auto f = open_bounded_file(path, max_bytes);
  if (!f) return f.error();
  return read_up_to(f->fd.get(), max_bytes);  // a file that grew since is still read no further
}

result<std::string> digest_bounded_file(const std::string& path, std::size_t max_bytes) {
  const auto f = open_bounded_file(path, max_bytes);
  if (!f) return f.error();
  sandbox::sha256_hasher hasher;
  std::array<char, 1 << 16> buf{};
  std::size_t got = 0;
  while (true) {
    const ssize_t n = ::read(f->fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_problem(errno);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > max_bytes) return problem("grew past the " + std::to_string(max_bytes) + " bytes it may have", EFBIG);
    hasher.update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  const auto d = hasher.finish();
  if (!d) return problem::says("SHA-256 failed");
  return d.digest.hex();
}

}  // namespace plb
