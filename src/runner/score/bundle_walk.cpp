// SPDX-License-Identifier: Apache-2.0
#include "runner/score/bundle_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "support/test_hold.hpp"

namespace plb::runner {
namespace {

using kind = bundle_error::kind;
namespace sb = sandbox;

// What a non-regular, non-directory entry is, for its refusal.
std::string type_words(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file or a directory";
}

// The relative path of `name` in the directory at `rel` ("" at the bundle's root).
std::string join(const std::string& rel, const std::string& name) {
  if (rel.empty()) return name;
  std::string path = rel;
  path += '/';
  path += name;
  return path;
}

std::string too_many_words(const sb::SandboxLimits& l) {
  return "more than the " + std::to_string(l.bundle_files) +
         " entries (files and directories) a bundle may hold (bundle_files)";
}

}  // namespace

bundle_error bundle_refusal(kind k, const std::string& rel, std::string detail, int err) {
  return {k, sb::escape_bundle_path(rel), std::move(detail), err};
}

bundle_error bundle_system_error(const std::string& rel, const std::string& doing, int err) {
  return bundle_refusal(kind::system, rel, doing + ": " + std::strerror(err), err);
}

bundle_error bundle_copy_error(const std::string& path, const std::string& doing, int err) {
  return bundle_refusal(kind::copy_failed, path, "its private copy: " + doing + ": " + std::strerror(err), err);
}

bundle_walker::bundle_walker(const sb::SandboxLimits& limits, std::optional<bundle_copy_target> copy,
                             bundle_walk_reads reads)
    : limits_(limits),
      copy_(reads == bundle_walk_reads::stat_only ? std::nullopt : copy),
      reads_(reads),
      buffer_(reads == bundle_walk_reads::stat_only ? nullptr : new char[bundle_buffer_bytes]) {}

std::string bundle_walker::source_stamp() const {
  std::vector<std::string> lines = stamps_;
  std::sort(lines.begin(), lines.end());
  std::string text = "bytes " + std::to_string(bytes_) + " files " + std::to_string(lines.size()) + "\n";
  for (const auto& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

bundle_result<std::uint64_t> bundle_walker::walk_dir(int dir_fd, const std::string& rel, int out_fd) {
  auto names = read_names(dir_fd, rel);
  if (!names) return names.error();
  std::uint64_t files_under = 0;
  for (const std::string& name : *names) {
    const std::string path = join(rel, name);
    if (const auto c = sb::check_bundle_path(path, limits_); !c) return path_error(path, c);
    if (++entries_ > limits_.bundle_files) return bundle_refusal(kind::too_many, path, too_many_words(limits_));
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) return bundle_refusal(kind::changed, path, "removed while the bundle was read");
      return bundle_system_error(path, "cannot stat it", errno);
    }
    if (S_ISDIR(st.st_mode)) {
      auto n = enter_dir(dir_fd, name, path, st, out_fd);
      if (!n) return n.error();
      files_under += *n;
    } else if (S_ISREG(st.st_mode)) {
      if (auto r = read_file(dir_fd, name, path, st, out_fd); !r) return r.error();
      ++files_under;
    } else {
      return bundle_refusal(kind::not_regular, path,
                            type_words(st.st_mode) + ", refused: a bundle holds only regular files and directories");
    }
  }
  return files_under;
}

// The entry names of one directory, sorted (so the first refusal is the same every time), their
// number bounded as they are read.
bundle_result<std::vector<std::string>> bundle_walker::read_names(int dir_fd, const std::string& rel) const {
  const int dup = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // its own offset
  if (dup < 0) return bundle_system_error(rel, "cannot read the directory", errno);
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    const int e = errno;
    ::close(dup);
    return bundle_system_error(rel, "cannot read the directory", e);
  }
  const std::unique_ptr<DIR, int (*)(DIR*)> closer(d, ::closedir);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string name(e->d_name);
    if (name == "." || name == "..") continue;
    if (entries_ + names.size() >= limits_.bundle_files)
      return bundle_refusal(kind::too_many, join(rel, name), too_many_words(limits_));
    names.push_back(name);
    errno = 0;
  }
  if (errno != 0) return bundle_system_error(rel, "cannot read the directory", errno);
  std::sort(names.begin(), names.end());
  return names;
}

bundle_error bundle_walker::path_error(const std::string& path, const sb::bundle_path_check& c) const {
  switch (c.error) {
    case sb::bundle_path_error::too_long:
      return bundle_refusal(kind::too_long, path,
                            "a path of " + std::to_string(path.size()) + " bytes, more than the " +
                                std::to_string(limits_.bundle_path_bytes) +
                                " a bundle's paths may have (bundle_path_bytes)");
    case sb::bundle_path_error::too_deep:
      return bundle_refusal(kind::too_deep, path,
                            "deeper than the " + std::to_string(limits_.bundle_depth) +
                                " levels a bundle's paths may have (bundle_depth)");
    default:
      return bundle_refusal(kind::bad_name, path,
                            std::string(sb::message(c.name.error)) + " at byte " + std::to_string(c.name.offset));
  }
}

bundle_result<std::uint64_t> bundle_walker::enter_dir(int dir_fd, const std::string& name, const std::string& path,
                                                      const struct stat& seen, int out_fd) {
  hold_at(hold_stage::bundle_entry);
  // O_NOFOLLOW: a directory swapped for a symbolic link since its stat is refused here, never followed.
  const unique_fd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub) {
    if (errno == ELOOP || errno == ENOTDIR || errno == ENOENT)
      return bundle_refusal(kind::changed, path, "replaced while the bundle was read (a directory, then not)");
    return bundle_system_error(path, "cannot open the directory", errno);
  }
  struct stat st {};
  if (::fstat(sub.get(), &st) != 0) return bundle_system_error(path, "cannot stat the directory", errno);
  if (!S_ISDIR(st.st_mode) || st.st_dev != seen.st_dev || st.st_ino != seen.st_ino)
    return bundle_refusal(kind::changed, path, "replaced while the bundle was read (another directory)");
  unique_fd out;
  if (copy_) {
    if (::mkdirat(out_fd, name.c_str(), 0700) != 0) return bundle_copy_error(path, "cannot create it", errno);
    out.reset(::openat(out_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!out) return bundle_copy_error(path, "cannot open it", errno);
  }
  auto n = walk_dir(sub.get(), path, out.get());
  if (!n || !copy_) return n;
  // Nothing the listing does not name: a directory without files is not copied.
  if (*n == 0) {
    out.reset();
    if (::unlinkat(out_fd, name.c_str(), AT_REMOVEDIR) != 0) return bundle_copy_error(path, "cannot remove it", errno);
  } else if (auto h = hand_over(out.get(), 0500, path); !h) {
    return h.error();
  }
  return n;
}

}  // namespace plb::runner
