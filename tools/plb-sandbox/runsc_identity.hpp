// What the daemon's runsc is: its release (from `runsc --version`) and the gVisor platform the
// daemon's runtime arguments select. Pure functions, unit-tested, besides the one that runs the
// binary.
#pragma once

#include <string>
#include <vector>

namespace plb::tool {

// The oldest gVisor release accepted: the first Debian ships with systrap as its default platform,
// and the one the host task budget (SandboxLimits::host_runtime_tasks) was measured on.
inline constexpr const char* min_runsc_release = "20240729";
inline constexpr const char* required_platform = "systrap";

// gVisor's release date from `runsc --version` ("runsc version 0.0~20240729.0"); empty if none.
std::string runsc_release(const std::string& version_line);

// The platform the runtime arguments select (--platform=X or --platform X); runsc's own default,
// systrap, when none is given (it has been since well before the oldest release accepted).
std::string runsc_platform(const std::vector<std::string>& runtime_args);

// The first line of `<path> --version`. Throws failure(host_refused) if it cannot be run.
std::string runtime_version(const std::string& runtime_path);

}  // namespace plb::tool
