// SPDX-License-Identifier: Apache-2.0
// The walk behind bundle_snapshot.hpp (its theory of operation is there): one directory at a time,
// each entry checked, stat'ed and either entered, read (and copied) or refused. Internal to score/.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/bundle_listing.hpp"
#include "plb/sandbox/limits.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

// An error about the entry at `rel` (escaped here), and one with the system's reason.
bundle_error bundle_refusal(bundle_error::kind k, const std::string& rel, std::string detail, int err = 0);
bundle_error bundle_system_error(const std::string& rel, const std::string& doing, int err);

// One read and write a step: large enough that the system calls cost nothing beside the hash,
// small enough that the host's memory does not notice the bundle.
inline constexpr std::size_t bundle_buffer_bytes = std::size_t{1} << 20;

// Where a snapshot copies to: a directory on the copy's file system (for its free space) and the
// sandbox user.
struct bundle_copy_target {
  int space_fd;
  std::uint32_t uid;
  std::uint32_t gid;
};

// What a walk does with each regular file: reads and hashes it (and copies it, given a target), or
// only stats it, for the source stamp (bundle_cache.hpp): nothing is opened but directories.
enum class bundle_walk_reads : std::uint8_t { every_byte, stat_only };

class bundle_walker {
 public:
  bundle_walker(const sandbox::SandboxLimits& limits, std::optional<bundle_copy_target> copy,
                bundle_walk_reads reads = bundle_walk_reads::every_byte);

  // Walks the directory open as `dir_fd` (`rel` "" at the bundle's root), copying into `out_fd`
  // when copying. Returns the number of regular files found under it.
  bundle_result<std::uint64_t> walk_dir(int dir_fd, const std::string& rel, int out_fd);

  // What the walk found, for the listing (empty for a stat-only walk).
  std::vector<sandbox::bundle_file> take_files() { return std::move(files_); }

  // The source stamp of what the walk found: its bytes and files, then a line per regular file,
  // sorted: device, inode, size, mtime and ctime (to the nanosecond) and the escaped path. Equal
  // stamps of the same directory at two moments mean that no file was added, removed, renamed or
  // written in between (a write moves the ctime, which no one but the clock's owner can set back).
  std::string source_stamp() const;
  std::uint64_t bytes() const noexcept { return bytes_; }
  std::uint64_t files() const noexcept { return stamps_.size(); }

 private:
  bundle_result<std::vector<std::string>> read_names(int dir_fd, const std::string& rel) const;
  bundle_error path_error(const std::string& path, const sandbox::bundle_path_check& c) const;
  bundle_result<std::uint64_t> enter_dir(int dir_fd, const std::string& name, const std::string& path,
                                         const struct stat& seen, int out_fd);
  // bundle_file_read.cpp: one regular file, read once, hashed and copied.
  bundle_result<void> read_file(int dir_fd, const std::string& name, const std::string& path, const struct stat& seen,
                                int out_fd);
  bundle_result<unique_fd> open_checked(int dir_fd, const std::string& name, const std::string& path,
                                        const struct stat& seen, struct stat& before) const;
  bundle_result<std::uint64_t> stream(int in_fd, int out_fd, std::uint64_t size, const std::string& path,
                                      sandbox::sha256_hasher& hasher);
  bundle_result<void> space_for(std::uint64_t size, const std::string& path) const;
  bundle_result<void> hand_over(int fd, mode_t mode, const std::string& path) const;

  const sandbox::SandboxLimits& limits_;
  std::optional<bundle_copy_target> copy_;
  bundle_walk_reads reads_;
  std::unique_ptr<char[]> buffer_;
  std::uint64_t entries_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<sandbox::bundle_file> files_;
  std::vector<std::string> stamps_;
};

// A failure to write the private copy: the host's fault, not the bundle's.
bundle_error bundle_copy_error(const std::string& path, const std::string& doing, int err);

}  // namespace plb::runner
