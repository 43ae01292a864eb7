// SPDX-License-Identifier: Apache-2.0
// The command line's signal handling, for the whole command: every signal that would end the
// tool and that it can catch is blocked from the first line of main (children inherit the mask and
// the docker client unblocks it again) and taken by one thread with sigwait, which only records a
// stop request. The command in progress then removes what it created; main re-raises the signal.
// SIGPIPE is ignored instead: a closed stderr must not end a run half-way.
#pragma once

#include "plb/sandbox/runner.hpp"

namespace plb::cli {

// Call first in main, before any thread exists.
void forward_signals_to(sandbox::stop_source& stop);

// Dies by `signo`, as a shell expects (exit status 128 + signo).
[[noreturn]] void die_by(int signo);

// The one line a stopped command prints, then die_by(signo).
[[noreturn]] void report_stop_and_die(int signo);

// "SIGHUP (1)".
std::string signal_name(int signo);

}  // namespace plb::cli
