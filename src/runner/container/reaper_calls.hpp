// SPDX-License-Identifier: Apache-2.0
// The reaper's few system calls, each async-signal-safe once its inputs exist: the reaper is
// forked from a threaded process and allocates nothing after fork. Private to reaper.cpp (and
// reaper_calls.cpp): the Engine requests here are raw on purpose, since the typed client
// (docker_engine.hpp) allocates.
#pragma once

#include <sys/un.h>

#include <cstdint>
#include <string>

namespace plb::runner::reaper_calls {

// "METHOD /v1.41PATH HTTP/1.1 ..." with no body; built before fork.
std::string engine_request(const char* method, const std::string& path);
// The HTTP status of one request to the daemon at `address`, or 0 when it could not be reached.
int engine_call(const sockaddr_un& address, const std::string& request) noexcept;
std::int64_t now_ms() noexcept;  // CLOCK_MONOTONIC
void sleep_ms(int ms) noexcept;
// Appends one prepared line to the file at `path` (open and write only).
void log_once(const std::string& path, const std::string& line) noexcept;

}  // namespace plb::runner::reaper_calls
