// SPDX-License-Identifier: Apache-2.0
#include "support/dir_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "plb/sandbox/digest.hpp"
#include "support/failure.hpp"

namespace plb {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// Whether `st` is a regular file of `owner`; otherwise what it is instead.
result<void> own_file(const struct stat& st, uid_t owner) {
  if (!S_ISREG(st.st_mode)) return problem::says(kind_of(st.st_mode));
  if (st.st_uid != owner) return problem::says("owned by uid " + std::to_string(st.st_uid) + ", not this user's");
  return {};
}

std::string temporary_name() {
  std::array<unsigned char, 8> r{};
  if (::getrandom(r.data(), r.size(), 0) != static_cast<ssize_t>(r.size()))
    fail(sandbox::verdict::internal_error, std::string("getrandom failed: ") + std::strerror(errno));
  std::string name = ".plb-batch-";  // IDs begin with a letter or digit: no line's file is dot-named
  char hex[3];
  for (const unsigned char b : r) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    name += hex;
  }
  return name;
}

}  // namespace

dir_entry probe_entry(int dir_fd, const std::string& name, uid_t owner) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? dir_entry{} : dir_entry{entry_kind::other, std::strerror(errno)};
  const auto own = own_file(st, owner);
  return own ? dir_entry{entry_kind::own_file, {}} : dir_entry{entry_kind::other, own.error().what};
}

result<unique_fd> open_own_file(int dir_fd, const std::string& name, uid_t owner) {
  const unique_fd handle(::openat(dir_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!handle || ::fstat(handle.get(), &st) != 0) return errno_problem(errno);
  // O_PATH with O_NOFOLLOW opens a symlink itself: fstat then says it is one, and it is refused.
  if (const auto own = own_file(st, owner); !own) return own.error();
  const std::string self = "/proc/self/fd/" + std::to_string(handle.get());
  unique_fd fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) return errno_problem(errno);
  return fd;
}

result<std::string> read_own_file(int dir_fd, const std::string& name, uid_t owner, std::size_t max_bytes) {
  const auto fd = open_own_file(dir_fd, name, owner);
  if (!fd) return fd.error();
  return read_up_to(fd->get(), max_bytes);
}

result<std::string> digest_of_fd(int fd) {
  sandbox::sha256_hasher hasher;
  std::array<char, 1 << 16> buf{};
  while (true) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_problem(errno);
    if (n == 0) break;
    hasher.update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  const auto d = hasher.finish();
  if (!d) return problem::says("SHA-256 failed");
  return d.digest.hex();
}

result<std::string> digest_own_file(int dir_fd, const std::string& name, uid_t owner) {
  const auto fd = open_own_file(dir_fd, name, owner);
  if (!fd) return fd.error();
  auto d = digest_of_fd(fd->get());
  if (!d) return problem::says("cannot be read");
  return d;
}

void replace_file_at(int dir_fd, const std::string& dir, const std::string& name, const std::string& contents) {
  file_replacement out(dir_fd, dir, name);
  out.append(contents);
  out.commit();
}

file_replacement::file_replacement(int dir_fd, std::string dir, std::string name)
    : dir_fd_(dir_fd), dir_(std::move(dir)), name_(std::move(name)) {
  for (int attempt = 0; attempt < 8 && !fd_; ++attempt) {
    tmp_ = temporary_name();
    fd_.reset(::openat(dir_fd_, tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd_ && errno != EEXIST) break;
  }
  if (!fd_) fail(sandbox::verdict::internal_error, "cannot create a file in " + dir_ + ": " + std::strerror(errno));
}

file_replacement::~file_replacement() {
  if (fd_) ::unlinkat(dir_fd_, tmp_.c_str(), 0);  // never committed: the name keeps what it had
}

void file_replacement::fail_with(int err) {
  fd_.reset();
  ::unlinkat(dir_fd_, tmp_.c_str(), 0);
  fail(sandbox::verdict::internal_error, "cannot write " + dir_ + "/" + name_ + ": " + std::strerror(err));
}

void file_replacement::flush() {
  if (buffer_.empty()) return;
  const auto written = write_all(fd_.get(), buffer_);
  if (!written) fail_with(written.error().errno_value);
  buffer_.clear();
}

void file_replacement::append(std::string_view text) {
  constexpr std::size_t chunk = std::size_t{64} * 1024;
  if (!fd_) fail(sandbox::verdict::internal_error, "cannot write " + dir_ + "/" + name_ + ": already committed");
  if (buffer_.capacity() < chunk) buffer_.reserve(chunk);
  if (buffer_.size() + text.size() > chunk) flush();
  if (text.size() >= chunk) {
    const auto written = write_all(fd_.get(), text);
    if (!written) fail_with(written.error().errno_value);
    return;
  }
  buffer_.append(text);
}

void file_replacement::commit() {
  flush();
  if (::fchmod(fd_.get(), 0600) != 0 || ::fsync(fd_.get()) != 0 ||
      ::renameat(dir_fd_, tmp_.c_str(), dir_fd_, name_.c_str()) != 0)
    fail_with(errno);
  fd_.reset();
}

std::string why_not_private(const struct stat& st, uid_t owner) {
  if (st.st_uid != owner)
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(owner) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("writable by group or others (mode ") + mode + ")";
  }
  return {};
}

result<void> check_private_dir(int fd, const std::string& path, uid_t owner) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_problem(errno);
  if (!S_ISDIR(st.st_mode)) return problem::says("not a directory");
  const std::string why = why_not_private(st, owner);
  if (why.empty()) return {};
  const std::string fresh = "use a new directory (plb-sandbox creates it 0700)";
  if (st.st_uid != owner)
    return problem::says(why + ": its owner could plant results there; " + fresh + ", or check its files and chown " +
                         std::to_string(owner) + " " + path);
  return problem::says(why + ": anyone who can write there could plant results; " + fresh +
                       ", or check its files and chmod go-w " + path);
}

result<unique_fd> open_private_subdir(int dir_fd, const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  if (::mkdirat(dir_fd, name.c_str(), 0700) != 0 && errno != EEXIST)
    return problem("cannot create " + path + ": " + std::strerror(errno), errno);
  unique_fd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return problem::says(path + ": not a directory (symlinks are refused)");
  if (const auto checked = check_private_dir(fd.get(), path, ::geteuid()); !checked)
    return problem::says(path + ": " + checked.error().what);
  return fd;
}

}  // namespace plb
