// Who owns a run: "<boot id>:<pid>:<start time>" of the tool process that waits for it. A PID
// alone is reused; with the boot ID and the kernel's start time it names one process for good,
// so a sweep can tell an orphan (its owner is gone) from a parallel run (its owner still waits).
#pragma once

#include <string>

namespace plb::tool {

std::string self_owner();
bool owner_alive(const std::string& owner);

}  // namespace plb::tool
