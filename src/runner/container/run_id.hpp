// SPDX-License-Identifier: Apache-2.0
// Fresh run IDs: 128 random bits as 32 lowercase hex digits, from the kernel's CSPRNG, so that
// container names and snapshot directories cannot be predicted or collide across parallel runs.
#pragma once

#include <string>

namespace plb::runner {

std::string new_run_id();

}  // namespace plb::runner
