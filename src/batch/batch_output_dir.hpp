// SPDX-License-Identifier: Apache-2.0
// The batch's output directory as every backend and worker holds it: opened once, checked, and
// reached only through its descriptor; with the key that decides which of its records to trust.
#pragma once

#include <sys/types.h>

#include <string>

#include "runner/for_batch.hpp"
#include "support/file_io.hpp"

namespace plb::batch {

struct output_dir {
  std::string path;  // absolute, for messages and the summary
  unique_fd fd;      // the directory itself
  unique_fd lock;    // with a lock: DIR/.plb-batch.lock, flocked as long as this lives
  uid_t owner;       // the tool's user: resume reads only this user's regular files
  host_key key;
};

// The output directory (support/private_dir.hpp's open_private_dir: the rule every directory the
// tool creates keeps), created 0700 if missing, opened with O_NOFOLLOW (a symlink is refused),
// and refused unless it is a real directory owned by this user and not writable by group or others:
// anyone else who can write to it could plant a line's results. With `lock`, locked for one batch
// at a time. Throws failure(usage_error) naming the directory, with the fix, before anything runs.
output_dir open_output_dir(const std::string& dir, bool lock, const host_key& key);

// The same with this host's key (this_host_key(): failure(host_refused) if it is unsafe).
output_dir open_output_dir(const std::string& dir, bool lock);

// The subdirectory `name` of the output directory at `dir` (open as `dir_fd`), made and checked by
// open_private_subdir. Throws failure(usage_error) naming --output-dir.
unique_fd open_output_subdir(int dir_fd, const std::string& dir, const std::string& name);

// A line's files in the directory.
std::string csv_name(const std::string& id);
std::string provenance_name(const std::string& id);
std::string record_name(const std::string& id);
std::string diagnostics_name(const std::string& id);  // <id>.stderr (--keep-stderr): never read by the tool

}  // namespace plb::batch
