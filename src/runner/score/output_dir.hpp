// SPDX-License-Identifier: Apache-2.0
// The directory a run's two outputs are published in: the one --output names, used as it is when
// it exists, or, when it does not exist yet, one the run creates under the rule of every directory
// the tool creates (support/private_dir.hpp: 0700, in a parent of this user's that no one else can
// write, one level only). It is created at publishing, only when the run succeeded, and removed
// again if its files then cannot be published: a refusal or a failed run leaves no directory
// behind, as it leaves no file.
#pragma once

#include <string>

namespace plb::runner {

// Throws failure(usage_error) "FLAG OUTPUT: directory DIR: why" unless the output's directory
// exists or may be created; creates nothing. Returns the nearest existing directory (existing_dir_of).
std::string check_output_dir(const std::string& output, const std::string& flag);

// The output's directory if it exists, else that directory's parent (which holds the same file
// system the outputs will be on: statvfs and O_TMPFILE probes look there).
std::string existing_dir_of(const std::string& output);

// At publishing: creates the output's directory if it is still missing; true if it created it.
// Throws failure(internal_error) naming the directory if it cannot (the rule no longer holds).
bool make_output_dir(const std::string& output);

// Removes the output's directory made by make_output_dir, if it is empty (nothing published).
void remove_output_dir(const std::string& output) noexcept;

}  // namespace plb::runner
