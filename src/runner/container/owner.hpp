// SPDX-License-Identifier: Apache-2.0
// The owner label's value, "<boot id>:<pid>:<start time>" of the tool process that started a
// container. Informational only (for an operator reading `docker inspect`): liveness is the run
// directory's lock (run_directory.hpp), which holds across PID namespaces where a PID does not.
#pragma once

#include <string>

namespace plb::runner {

std::string self_owner();

}  // namespace plb::runner
