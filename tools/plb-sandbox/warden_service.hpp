// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox warden`: the host service around the runner's warden logic (runner/host/warden.hpp
// decides what is overdue and how a status line reads; this file runs the passes and answers).
#pragma once

#include <string>

namespace plb::cli {

// Runs the service until SIGTERM or SIGINT; returns the exit code. One warden per host: a second
// one finds the lock taken and exits 0 at once, saying so.
int run_warden(const std::string& socket_path);

// `plb-sandbox warden --supervise` (warden_supervisor.cpp): starts the warden from this same
// binary and restarts it whenever it dies (not when it stops cleanly: SIGTERM, or another warden
// already runs). SIGTERM stops both. One per host, like the warden; a warden whose supervisor dies
// execs itself into a new one, so only killing both at once ends the bound.
int run_warden_supervisor(const std::string& socket_path);

// `plb-sandbox warden --status`: the status line of the warden at `socket_path` on stdout (exit
// 0), or throws failure(host_refused) saying what answered instead.
int print_warden_status(const std::string& socket_path);

}  // namespace plb::cli
