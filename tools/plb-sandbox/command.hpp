// Runs a trusted host command (the runtime's --version) and returns what it printed.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace plb::tool {

// At most 64 KiB of stdout; stderr discarded. Throws failure(host_refused) if it cannot run or
// does not finish in time.
std::string capture_command(const std::string& path, const std::vector<std::string>& args,
                            std::chrono::seconds timeout);

}  // namespace plb::tool
