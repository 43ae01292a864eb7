// SPDX-License-Identifier: Apache-2.0
// The directories the tool creates for its outputs, under one rule: batch's --output-dir, and the
// missing directory of a sandbox-score (or verify) --output. A directory the tool creates is made
// 0700, one level only (never a chain: a mistyped path is refused, not built), then opened
// O_NOFOLLOW and trusted only once check_private_dir (dir_files.hpp) passed on its descriptor.
#pragma once

#include <string>

#include "support/file_io.hpp"
#include "support/problem.hpp"

namespace plb {

// The directory at `path`, created 0700 if missing (its parent must exist), opened O_NOFOLLOW (a
// symlink is refused) and checked by check_private_dir. The problem reads after `path`: "No such
// file or directory", "not a directory (symlinks are refused)", or check_private_dir's, with the fix.
result<unique_fd> open_private_dir(const std::string& path);

// Nothing when the tool may create the missing directory `path`: nothing is there (not even a
// symlink to nothing), and its parent is a real directory (not a symlink) of this user's that
// group and others cannot write (why_not_private's rule), so no one else can replace the new
// directory between its creation and its use by path. Otherwise why not, with the fix; the
// problem reads after `path`. A missing parent is refused: no chain is ever created.
result<void> check_creatable_dir(const std::string& path);

// The missing directory `path` created under check_creatable_dir's rule, then open_private_dir's
// (another run of this user's may have created it meanwhile: it is used if it passes).
result<unique_fd> create_private_dir(const std::string& path);

// The directory part of `path`: "." for a bare name, "/" for a name in the root.
std::string directory_of(const std::string& path);

}  // namespace plb
