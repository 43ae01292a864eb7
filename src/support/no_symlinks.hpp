// SPDX-License-Identifier: Apache-2.0
// The files a run, verify and resume open after the request: never through a symbolic link, and
// never read past the size they may have.
//
// A path named in a request or a sealed provenance (the model, the data, the predictions and their
// provenance) is resolved with no symbolic link on any of its components: openat2(2) with
// RESOLVE_NO_SYMLINKS where the kernel has it (5.6 and later), else one component at a time with
// O_PATH | O_NOFOLLOW, each checked with fstat. A link planted at a recorded path (to /etc/shadow,
// to /proc/self/environ, to a 1 GiB sparse file) is refused before anything is read through it.
// Then, as file_io.hpp does, only a regular file is reopened for reading (a FIFO never blocks, a
// device is never opened), and a file larger than its bound is refused by its size, unread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/file_io.hpp"
#include "support/problem.hpp"

namespace plb {

// How the components are resolved: the kernel's openat2, or the walk (the fallback, and what a
// test drives on a kernel that has openat2).
enum class symlink_resolver { best, walk };

// An O_PATH descriptor of `path`, reached through no symbolic link; otherwise why not. A link on
// the path is ELOOP, in the words of no_symlink_words.
result<unique_fd> open_path_no_symlinks(const std::string& path, symlink_resolver how = symlink_resolver::best);

// What a refused link is called, for callers that test for it.
inline constexpr const char* no_symlink_words =
    "a symbolic link on its path is refused (name the file itself, not a link to it)";

// The bound of a file whose bytes its reader bounds itself (the data: the CSV reader bounds its
// cells and values, not the columns it skips).
inline constexpr std::size_t unbounded_size = SIZE_MAX;

// `path` opened for reading if it is a regular file of at most `max_bytes`, reached through no
// symbolic link; otherwise why not: the link, "not a regular file", "N bytes, more than the M it
// may have" (EFBIG, as is_too_large tests), or the system's reason.
result<regular_file> open_bounded_file(const std::string& path, std::size_t max_bytes,
                                       symlink_resolver how = symlink_resolver::best);

// The whole of such a file (at most `max_bytes`, whatever it grows to while it is read).
result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes);

// The SHA-256 (64 lowercase hex digits) of such a file, read as a stream of at most `max_bytes`.
result<std::string> digest_bounded_file(const std::string& path, std::size_t max_bytes);

}  // namespace plb
