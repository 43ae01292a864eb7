// SPDX-License-Identifier: Apache-2.0
// What the docker client's process gets from the tool: a clean descriptor table, its own process
// group, default signal handling and the run's CPUs (child_setup, a Boost.Process initializer); and what the
// tool's thread does meanwhile about SIGPIPE (sigpipe_blocked).
#pragma once

#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include <boost/process/v2.hpp>
#include <boost/version.hpp>

namespace plb {

namespace bp = boost::process::v2;

// Runs in the child between fork and exec (system calls only).
struct child_setup {
  // The CPUs the child may run on (nullptr: the tool's own). The docker client of a run gets the
  // run's CPUs, so its start-up and its relaying of the output stay off the CPUs of other runs.
  const cpu_set_t* cpus = nullptr;

  // const: the launcher skips, without a word, an initializer whose hook it cannot call, and a
  // const child_setup with a non-const hook would lose every step below.
  template <class Launcher>
  bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*) const {
    if (cpus && ::sched_setaffinity(0, sizeof *cpus, cpus) != 0) return bp::error_code(errno, bp::system_category());
#if BOOST_VERSION < 108200
    // Boost 1.81 workaround: Boost.Process v2 leaks the parent's descriptors into the child. Every
    // descriptor this tool opens is O_CLOEXEC anyway; this catches the library's own and a
    // caller's (the runner is a library). Re-check, then drop, on a newer Boost.
    if (::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
      return bp::error_code(errno, bp::system_category());
#endif
    // Own process group: a terminal's Ctrl-C reaches the tool, which then removes the container,
    // instead of the client, which would detach and leave the container running.
    if (::setpgid(0, 0) != 0) return bp::error_code(errno, bp::system_category());
    // The tool ignores SIGPIPE and blocks the terminating signals for its signal thread; the
    // client gets the defaults back.
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    return {};
  }
};

// A script that exits without reading stdin must cost us an EPIPE, not a fatal SIGPIPE, and a
// library must not change the process's dispositions: SIGPIPE is blocked in this thread (which
// does all the writing) for the run, and one raised meanwhile is consumed before unblocking.
class sigpipe_blocked {
 public:
  sigpipe_blocked() noexcept {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~sigpipe_blocked() {
    const timespec zero{0, 0};
    while (::sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  sigpipe_blocked(const sigpipe_blocked&) = delete;
  sigpipe_blocked& operator=(const sigpipe_blocked&) = delete;

 private:
  sigset_t pipe_, old_;
};

}  // namespace plb
