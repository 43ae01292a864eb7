// SPDX-License-Identifier: Apache-2.0
#include "runner/score/bundle_snapshot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/no_symlinks.hpp"
#include "support/test_hold.hpp"

namespace plb::runner {

std::string bundle_error::message() const { return path.empty() ? detail : path + ": " + detail; }

void throw_exception_from_error(const bundle_error& e, const boost::source_location&) {
  throw std::runtime_error(e.message());
}

namespace {

using kind = bundle_error::kind;
namespace sb = sandbox;

// One read and write a step: large enough that the syscalls cost nothing beside the hash, small
// enough that the host's memory does not notice the bundle.
constexpr std::size_t buffer_bytes = std::size_t{1} << 20;

// Left free on the run directory's file system after the copy, for the run's other files and the
// host's own.
constexpr std::uint64_t free_space_reserve = std::uint64_t{64} << 20;

bundle_error error(kind k, const std::string& rel, std::string detail, int err = 0) {
  return {k, sb::escape_bundle_path(rel), std::move(detail), err};
}
bundle_error system_error(const std::string& rel, const std::string& doing, int err) {
  return error(kind::system, rel, doing + ": " + std::strerror(err), err);
}

std::string mib_text(std::uint64_t mib) { return std::to_string(mib) + " MiB"; }

// What a non-regular, non-directory entry is, for its refusal.
std::string type_words(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file or a directory";
}

bool same_inode(const struct stat& a, const struct stat& b) noexcept {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
bool same_time(const struct timespec& a, const struct timespec& b) noexcept {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Where a snapshot copies to: the directory it is filling, the sandbox user, the file system.
struct copy_target {
  int root_fd;  // the run directory's descriptor, for fstatvfs
  std::uint32_t uid;
  std::uint32_t gid;
};

class bundle_walker {
 public:
  bundle_walker(const sb::SandboxLimits& limits, std::optional<copy_target> copy)
      : limits_(limits), copy_(copy), buffer_(new char[buffer_bytes]) {}

  // Walks the directory open as `dir_fd` ("" at the bundle's root), copying into `out_fd` when
  // copying. Returns the number of regular files found under it.
  bundle_result<std::uint64_t> walk_dir(int dir_fd, const std::string& rel, int out_fd) {
    auto names = read_names(dir_fd, rel);
    if (!names) return names.error();
    std::uint64_t files_under = 0;
    for (const std::string& name : *names) {
      const std::string path = rel.empty() ? name : rel + "/" + name;
      if (const auto c = sb::check_bundle_path(path, limits_); !c) return path_error(path, c);
      if (++entries_ > limits_.bundle_files)
        return error(kind::too_many, path,
                     "more than the " + std::to_string(limits_.bundle_files) + " entries a bundle may hold (bundle_files)");
      struct stat st {};
      if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return error(kind::changed, path, "removed while the bundle was read");
        return system_error(path, "cannot stat it", errno);
      }
      if (S_ISDIR(st.st_mode)) {
        auto n = enter_dir(dir_fd, name, path, st, out_fd);
        if (!n) return n.error();
        files_under += *n;
      } else if (S_ISREG(st.st_mode)) {
        if (auto r = read_file(dir_fd, name, path, st, out_fd); !r) return r.error();
        ++files_under;
      } else {
        return error(kind::not_regular, path,
                     type_words(st.st_mode) + ", refused: a bundle holds only regular files and directories");
      }
    }
    return files_under;
  }

  std::vector<sb::bundle_file> take_files() { return std::move(files_); }

 private:
  // The entry names of one directory, sorted (so the first refusal is the same every time), their
  // number bounded as they are read.
  bundle_result<std::vector<std::string>> read_names(int dir_fd, const std::string& rel) {
    const int dup = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0) return system_error(rel, "cannot read the directory", errno);
    DIR* d = ::fdopendir(dup);
    if (d == nullptr) {
      const int e = errno;
      ::close(dup);
      return system_error(rel, "cannot read the directory", e);
    }
    const std::unique_ptr<DIR, int (*)(DIR*)> closer(d, ::closedir);
    ::rewinddir(d);  // the duplicate shares the offset with dir_fd: start from the start
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      if (entries_ + names.size() >= limits_.bundle_files) {
        const std::string path = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
        return error(kind::too_many, path,
                     "more than the " + std::to_string(limits_.bundle_files) + " entries a bundle may hold (bundle_files)");
      }
      names.emplace_back(name);
      errno = 0;
    }
    if (errno != 0) return system_error(rel, "cannot read the directory", errno);
    std::sort(names.begin(), names.end());
    return names;
  }

  bundle_error path_error(const std::string& path, const sb::bundle_path_check& c) const {
    switch (c.error) {
      case sb::bundle_path_error::too_long:
        return error(kind::too_long, path,
                     "a path of " + std::to_string(path.size()) + " bytes, more than the " +
                         std::to_string(limits_.bundle_path_bytes) + " a bundle's paths may have (bundle_path_bytes)");
      case sb::bundle_path_error::too_deep:
        return error(kind::too_deep, path,
                     "deeper than the " + std::to_string(limits_.bundle_depth) +
                         " directory levels a bundle may have (bundle_depth)");
      default:
        return error(kind::bad_name, path,
                     std::string(sb::message(c.name.error)) + " at byte " + std::to_string(c.name.offset));
    }
  }

  bundle_result<std::uint64_t> enter_dir(int dir_fd, const std::string& name, const std::string& path,
                                         const struct stat& seen, int out_fd) {
    hold_at(hold_stage::bundle_entry);
    // O_NOFOLLOW: a directory swapped for a symbolic link since its stat is refused here.
    const unique_fd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub) {
      if (errno == ELOOP || errno == ENOTDIR || errno == ENOENT)
        return error(kind::changed, path, "replaced while the bundle was read (a directory, then not)");
      return system_error(path, "cannot open the directory", errno);
    }
    struct stat st {};
    if (::fstat(sub.get(), &st) != 0) return system_error(path, "cannot stat the directory", errno);
    if (!S_ISDIR(st.st_mode) || !same_inode(st, seen))
      return error(kind::changed, path, "replaced while the bundle was read (another directory)");
    unique_fd out;
    if (copy_) {
      if (::mkdirat(out_fd, name.c_str(), 0700) != 0) return copy_error(path, "cannot create its copy", errno);
      out.reset(::openat(out_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!out) return copy_error(path, "cannot open its copy", errno);
    }
    auto n = walk_dir(sub.get(), path, out.get());
    if (!n) return n;
    if (copy_) {
      // Nothing the listing does not name: a directory without files is not copied.
      if (*n == 0) {
        out.reset();
        if (::unlinkat(out_fd, name.c_str(), AT_REMOVEDIR) != 0) return copy_error(path, "cannot remove its copy", errno);
      } else if (auto h = hand_over(out.get(), 0500, path); !h) {
        return h.error();
      }
    }
    return n;
  }

  bundle_result<void> read_file(int dir_fd, const std::string& name, const std::string& path, const struct stat& seen,
                                int out_fd) {
    if (seen.st_nlink > 1)
      return error(kind::hard_link, path,
                   "a hard link (" + std::to_string(seen.st_nlink) + " links), refused: its other names are not the bundle's");
    // Charged before a byte is read: a sparse file that claims a terabyte is refused unread.
    const std::uint64_t limit = sb::bytes(limits_.bundle_mib);
    const auto size = static_cast<std::uint64_t>(seen.st_size);
    if (size > limit - bytes_)
      return error(kind::too_large, path,
                   std::to_string(size) + " bytes, past the " + mib_text(limits_.bundle_mib) +
                       " a bundle may hold in all (bundle_mib; " + std::to_string(bytes_) + " bytes before it)");
    hold_at(hold_stage::bundle_entry);
    // O_PATH first: whatever the name is now, nothing is opened for reading until fstat says it is
    // the regular file the walk saw.
    const unique_fd at(::openat(dir_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!at) {
      if (errno == ENOENT) return error(kind::changed, path, "removed while the bundle was read");
      return system_error(path, "cannot open it", errno);
    }
    struct stat before {};
    if (::fstat(at.get(), &before) != 0) return system_error(path, "cannot stat it", errno);
    if (!S_ISREG(before.st_mode) || !same_inode(before, seen))
      return error(kind::changed, path, "replaced while the bundle was read");
    if (before.st_nlink > 1) return error(kind::hard_link, path, "a hard link, made while the bundle was read");
    if (before.st_size != seen.st_size || !same_time(before.st_mtim, seen.st_mtim))
      return error(kind::changed, path, "changed while the bundle was read");
    const unique_fd in(
        ::open(("/proc/self/fd/" + std::to_string(at.get())).c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!in) return system_error(path, "cannot open it for reading", errno);

    unique_fd out;
    if (copy_) {
      if (auto room = space_for(size, path); !room) return room.error();
      out.reset(::openat(out_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
      if (!out) return copy_error(path, "cannot create its copy", errno);
    }

    // One pass: every byte read once, hashed and copied from the same buffer.
    sb::sha256_hasher hasher;
    std::uint64_t got = 0;
    bool first = true;
    while (true) {
      const ssize_t n = ::read(in.get(), buffer_.get(), buffer_bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return system_error(path, "cannot read it", errno);
      if (n == 0) break;
      got += static_cast<std::uint64_t>(n);
      if (got > size) return error(kind::changed, path, "grew while it was read");
      const std::string_view chunk(buffer_.get(), static_cast<std::size_t>(n));
      hasher.update(chunk);
      if (copy_) {
        if (auto w = write_all(out.get(), chunk); !w) return copy_error(path, "cannot write its copy", w.error().errno_value);
      }
      if (first) hold_at(hold_stage::bundle_read);
      first = false;
    }
    struct stat after {};
    if (::fstat(in.get(), &after) != 0) return system_error(path, "cannot stat it", errno);
    if (got != size || after.st_size != before.st_size || !same_time(after.st_mtim, before.st_mtim) ||
        !same_time(after.st_ctim, before.st_ctim) || after.st_nlink != before.st_nlink)
      return error(kind::changed, path,
                   "changed while it was read (" + std::to_string(size) + " bytes, then " + std::to_string(got) +
                       " read and " + std::to_string(after.st_size) + " after)");
    const auto d = hasher.finish();
    if (!d) return error(kind::system, path, "SHA-256 computation failed");
    if (copy_) {
      if (auto h = hand_over(out.get(), 0400, path); !h) return h.error();
    }
    bytes_ += size;
    files_.push_back({path, size, d.digest});
    return {};
  }

  // The copy's file system must hold `size` more bytes and the reserve.
  bundle_result<void> space_for(std::uint64_t size, const std::string& path) const {
    struct statvfs fs {};
    if (::fstatvfs(copy_->root_fd, &fs) != 0) return copy_error(path, "cannot read the run directory's free space", errno);
    const std::uint64_t free = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (size > free || free - size < free_space_reserve)
      return error(kind::no_space, path,
                   "its copy needs " + std::to_string(size) + " bytes and the run directory's file system has " +
                       std::to_string(free) + " free, " + mib_text(free_space_reserve >> 20) + " of which stay free");
    return {};
  }

  // The sandbox user's, read-only, as the script's snapshot is.
  bundle_result<void> hand_over(int fd, mode_t mode, const std::string& path) const {
    if (::fchown(fd, copy_->uid, copy_->gid) != 0) return copy_error(path, "cannot hand its copy to the sandbox user", errno);
    if (::fchmod(fd, mode) != 0) return copy_error(path, "cannot set its copy's mode", errno);
    return {};
  }

  static bundle_error copy_error(const std::string& path, const std::string& doing, int err) {
    return error(kind::copy_failed, path, doing + ": " + std::strerror(err), err);
  }

  const sb::SandboxLimits& limits_;
  std::optional<copy_target> copy_;
  std::unique_ptr<char[]> buffer_;
  std::uint64_t entries_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<sb::bundle_file> files_;
};

// The bundle's own directory, reached through no symbolic link on its path.
bundle_result<unique_fd> open_bundle_root(const std::string& bundle_dir) {
  const auto at = open_path_no_symlinks(bundle_dir);
  if (!at) return bundle_error{kind::not_a_directory, "", at.error().what, at.error().errno_value};
  unique_fd dir(::openat(at->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    if (errno == ENOTDIR) return bundle_error{kind::not_a_directory, "", "not a directory", ENOTDIR};
    return bundle_error{kind::system, "", std::string("cannot open the directory: ") + std::strerror(errno), errno};
  }
  return dir;
}

bundle_result<sb::bundle_listing> finish(bundle_walker& w, bool keep_text) {
  auto l = sb::make_bundle_listing(w.take_files(), keep_text);
  if (!l) return bundle_error{kind::system, "", "SHA-256 computation failed", 0};
  return std::move(l.listing);
}

}  // namespace

bundle_result<sb::bundle_listing> digest_bundle(const std::string& bundle_dir, const sb::SandboxLimits& limits,
                                                bool keep_text) {
  auto root = open_bundle_root(bundle_dir);
  if (!root) return root.error();
  bundle_walker w(limits, std::nullopt);
  if (auto n = w.walk_dir(root->get(), "", -1); !n) return n.error();
  return finish(w, keep_text);
}

bundle_snapshot take_bundle_snapshot(const std::string& bundle_dir, const sb::sha256_digest& expected,
                                     const sb::SandboxLimits& limits, const run_directory& dir, std::uint32_t uid,
                                     std::uint32_t gid, const char* bundle_field, const char* digest_field) {
  const std::string what = std::string(bundle_field) + " " + sb::escape_bundle_path(bundle_dir);
  auto root = open_bundle_root(bundle_dir);
  if (!root) fail(sb::verdict::input_refused, what + ": " + root.error().message());

  bundle_snapshot snap;
  snap.path = dir.path() + "/" + bundle_copy_name;
  if (::mkdirat(dir.fd(), bundle_copy_name, 0700) != 0)
    fail(sb::verdict::internal_error, "cannot create the bundle's copy: " + std::string(std::strerror(errno)));
  // Whatever ends the snapshot early, its partial copy goes at once (the run directory's removal
  // would take it too, later).
  struct remove_unless_kept {
    std::string path;
    bool keep = false;
    ~remove_unless_kept() {
      std::error_code ec;
      if (!keep) std::filesystem::remove_all(path, ec);
    }
  } partial{snap.path};
  const unique_fd out(::openat(dir.fd(), bundle_copy_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!out) fail(sb::verdict::internal_error, "cannot open the bundle's copy: " + std::string(std::strerror(errno)));

  bundle_walker w(limits, copy_target{dir.fd(), uid, gid});
  auto walked = w.walk_dir(root->get(), "", out.get());
  if (!walked) {
    const auto& e = walked.error();
    if (e.what == kind::no_space) fail(sb::verdict::host_refused, what + ": " + e.message());
    if (e.what == kind::copy_failed) fail(sb::verdict::internal_error, what + ": " + e.message());
    fail(sb::verdict::input_refused, what + ": " + e.message());
  }
  if (::fchown(out.get(), uid, gid) != 0)
    fail(sb::verdict::host_refused, "cannot hand the bundle's copy to the sandbox user (" +
                                        std::string(std::strerror(errno)) + "): run plb-sandbox as root");
  if (::fchmod(out.get(), 0500) != 0)
    fail(sb::verdict::internal_error, "cannot set the bundle copy's mode: " + std::string(std::strerror(errno)));

  auto listing = finish(w, false);
  if (!listing) fail(sb::verdict::internal_error, what + ": " + listing.error().message());
  if (!constant_time_equal(listing->digest, expected))
    fail(sb::verdict::input_refused, what + " has SHA-256 " + listing->digest.hex() + ", not the reviewed " +
                                         expected.hex() + " given by " + digest_field);
  snap.digest = listing->digest;
  snap.bytes = listing->bytes;
  snap.files = listing->files;
  partial.keep = true;
  return snap;
}

}  // namespace plb::runner
