// SPDX-License-Identifier: Apache-2.0
// What the warden and its supervisor share: their log line, their state directory's locks, and
// how a supervisor names itself to the warden it starts.
#pragma once

#include <chrono>
#include <string>

#include "support/file_io.hpp"
#include "warden_log.hpp"  // log_line

namespace plb::cli {

// The environment variable a supervisor sets to its own PID for the warden it starts.
inline constexpr const char* supervisor_variable = "PLB_SANDBOX_WARDEN_SUPERVISOR";

// Checks the socket's directory (created if missing: root's, writable by root only, so only root
// can have bound the socket), then takes `lock_name` in it exclusively, retrying for up to `wait`.
// An empty descriptor: another process holds it. Throws failure(host_refused) on an unsafe directory.
unique_fd claim_directory(const std::string& socket_path, const char* lock_name, std::chrono::milliseconds wait);

}  // namespace plb::cli
