// SPDX-License-Identifier: Apache-2.0
// Small entries in the tool's cache directory (state_dirs.hpp's cache_dir), one file per key in a
// subdirectory of its own: the gVisor proof and the runsc identity. An entry is only as
// trustworthy as the directories it was read from, so both levels are checked (root's, writable
// by nobody else, no symlink) on every read and write. Writes are atomic (a temporary file, then
// rename) and best effort: a cache that cannot be written only costs the next run the work again.
#pragma once

#include <optional>
#include <string>

namespace plb::runner {

// The entry `name` of `subdir`, if the cache and the subdirectory are safe and it is stored.
std::optional<std::string> read_cache_entry(const char* subdir, const std::string& name);

void store_cache_entry(const char* subdir, const std::string& name, const std::string& text) noexcept;

}  // namespace plb::runner
