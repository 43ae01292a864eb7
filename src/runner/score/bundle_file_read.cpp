// SPDX-License-Identifier: Apache-2.0
// One regular file of a bundle: opened only once it is known to be the file the walk saw, charged
// to the bounds before a byte is read, then read once, hashed and (for a snapshot) copied from the
// same buffer, and refused if it changed meanwhile.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "runner/score/bundle_walk.hpp"
#include "support/test_hold.hpp"

namespace plb::runner {
namespace {

using kind = bundle_error::kind;
namespace sb = sandbox;

// Left free on the copy's file system after each file's copy, for the run's other files
// and the host's own.
constexpr std::uint64_t free_space_reserve = std::uint64_t{64} << 20;

bool same_time(const struct timespec& a, const struct timespec& b) noexcept {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

std::string time_words(const struct timespec& t) {
  std::string ns = std::to_string(t.tv_nsec);
  return std::to_string(t.tv_sec) + "." + std::string(9 - std::min<std::size_t>(9, ns.size()), '0') + ns;
}

// One file's line of the source stamp (bundle_walk.hpp): the path last, escaped, so any name fits.
std::string stamp_line(const std::string& path, const struct stat& st) {
  return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
         time_words(st.st_mtim) + " " + time_words(st.st_ctim) + " " + sb::escape_bundle_path(path);
}

}  // namespace

bundle_result<void> bundle_walker::read_file(int dir_fd, const std::string& name, const std::string& path,
                                             const struct stat& seen, int out_fd) {
  if (seen.st_nlink > 1)
    return bundle_refusal(
        kind::hard_link, path,
        "a hard link (" + std::to_string(seen.st_nlink) + " links), refused: a bundle's files have no other names");
  // Charged before a byte is read: a sparse file that claims a terabyte is refused unread.
  const auto size = static_cast<std::uint64_t>(seen.st_size);
  if (size > sb::bytes(limits_.bundle_mib) - bytes_)
    return bundle_refusal(kind::too_large, path,
                          std::to_string(size) + " bytes, past the " + std::to_string(limits_.bundle_mib) +
                              " MiB a bundle may hold in all (bundle_mib; " + std::to_string(bytes_) +
                              " bytes before it)");
  if (reads_ == bundle_walk_reads::stat_only) {  // nothing opened: the stamp is the stat's
    bytes_ += size;
    stamps_.push_back(stamp_line(path, seen));
    return {};
  }
  struct stat before {};
  auto in = open_checked(dir_fd, name, path, seen, before);
  if (!in) return in.error();
  unique_fd out;
  if (copy_) {
    if (auto room = space_for(size, path); !room) return room.error();
    out.reset(::openat(out_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
    if (!out) return bundle_copy_error(path, "cannot create it", errno);
  }
  sb::sha256_hasher hasher;
  const auto got = stream(in->get(), out.get(), size, path, hasher);
  if (!got) return got.error();
  // The same file, unchanged: its size, mtime and ctime as before the read, every byte read.
  struct stat after {};
  if (::fstat(in->get(), &after) != 0) return bundle_system_error(path, "cannot stat it", errno);
  if (*got != size || after.st_size != before.st_size || !same_time(after.st_mtim, before.st_mtim) ||
      !same_time(after.st_ctim, before.st_ctim) || after.st_nlink != before.st_nlink)
    return bundle_refusal(kind::changed, path,
                          "changed while it was read (" + std::to_string(size) + " bytes, " + std::to_string(*got) +
                              " read, " + std::to_string(after.st_size) + " after)");
  const auto d = hasher.finish();
  if (!d) return bundle_refusal(kind::system, path, "SHA-256 computation failed");
  if (copy_) {
    if (auto h = hand_over(out.get(), 0400, path); !h) return h.error();
  }
  bytes_ += size;
  files_.push_back({path, size, d.digest});
  stamps_.push_back(stamp_line(path, before));
  return {};
}

// O_PATH first: whatever the name is now, nothing is opened for reading until fstat says it is the
// regular file the walk saw; then reopened through /proc/self/fd, which names exactly that inode (a
// FIFO or a device swapped in is never opened).
bundle_result<unique_fd> bundle_walker::open_checked(int dir_fd, const std::string& name, const std::string& path,
                                                     const struct stat& seen, struct stat& before) const {
  hold_at(hold_stage::bundle_entry);
  const unique_fd at(::openat(dir_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!at) {
    if (errno == ENOENT) return bundle_refusal(kind::changed, path, "removed while the bundle was read");
    return bundle_system_error(path, "cannot open it", errno);
  }
  if (::fstat(at.get(), &before) != 0) return bundle_system_error(path, "cannot stat it", errno);
  if (!S_ISREG(before.st_mode) || before.st_dev != seen.st_dev || before.st_ino != seen.st_ino)
    return bundle_refusal(kind::changed, path, "replaced while the bundle was read");
  if (before.st_nlink > 1) return bundle_refusal(kind::hard_link, path, "a hard link, made while the bundle was read");
  if (before.st_size != seen.st_size || !same_time(before.st_mtim, seen.st_mtim))
    return bundle_refusal(kind::changed, path, "changed while the bundle was read");
  unique_fd in(
      ::open(("/proc/self/fd/" + std::to_string(at.get())).c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!in) return bundle_system_error(path, "cannot open it for reading", errno);
  return in;
}

// Every byte once, hashed and copied from the same buffer; more bytes than `size` is a file that
// grew. The number of bytes read.
bundle_result<std::uint64_t> bundle_walker::stream(int in_fd, int out_fd, std::uint64_t size, const std::string& path,
                                                   sb::sha256_hasher& hasher) {
  std::uint64_t got = 0;
  while (true) {
    const ssize_t n = ::read(in_fd, buffer_.get(), bundle_buffer_bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return bundle_system_error(path, "cannot read it", errno);
    if (n == 0) return got;
    if (got == 0) hold_at(hold_stage::bundle_read);
    got += static_cast<std::uint64_t>(n);
    if (got > size) return bundle_refusal(kind::changed, path, "grew while it was read");
    const std::string_view chunk(buffer_.get(), static_cast<std::size_t>(n));
    hasher.update(chunk);
    if (out_fd >= 0) {
      if (auto w = write_all(out_fd, chunk); !w)
        return bundle_copy_error(path, "cannot write it", w.error().errno_value);
    }
  }
}

// The copy's file system must hold `size` more bytes and keep the reserve.
bundle_result<void> bundle_walker::space_for(std::uint64_t size, const std::string& path) const {
  struct statvfs fs {};
  if (::fstatvfs(copy_->space_fd, &fs) != 0) return bundle_copy_error(path, "cannot read the free space", errno);
  const std::uint64_t free = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (size > free || free - size < free_space_reserve)
    return bundle_refusal(kind::no_space, path,
                          "its copy needs " + std::to_string(size) + " bytes and the copy's file system has " +
                              std::to_string(free) + " free, of which " + std::to_string(free_space_reserve >> 20) +
                              " MiB must stay free");
  return {};
}

// The sandbox user's, read-only, as the script's snapshot is.
bundle_result<void> bundle_walker::hand_over(int fd, mode_t mode, const std::string& path) const {
  if (::fchown(fd, copy_->uid, copy_->gid) != 0)
    return bundle_copy_error(path, "cannot hand it to the sandbox user", errno);
  if (::fchmod(fd, mode) != 0) return bundle_copy_error(path, "cannot set its mode", errno);
  return {};
}

}  // namespace plb::runner
