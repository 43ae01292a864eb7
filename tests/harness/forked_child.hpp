// SPDX-License-Identifier: Apache-2.0
// A child process a test forks, killed and reaped on every way out of the test: the guard's
// destructor runs on an ASSERT's early return and on an exception alike, so no child outlives the
// test body that made it. The child also dies with its parent (PR_SET_PDEATHSIG): a test process
// killed by ctest's timeout, or by any signal, leaves no child holding ctest's output pipe open.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace plb::test {

class forked_child {
 public:
  // Forks and runs `body` in the child, which then exits with status 0. pid() is -1 when fork failed.
  template <typename Body>
  explicit forked_child(Body&& body) {
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ != 0) return;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before the request took hold
    std::forward<Body>(body)();
    ::_exit(0);
  }
  ~forked_child() { stop(); }
  forked_child(const forked_child&) = delete;
  forked_child& operator=(const forked_child&) = delete;

  pid_t pid() const noexcept { return pid_; }
  explicit operator bool() const noexcept { return pid_ > 0; }

  // Waits for the child to exit by itself and returns its wait status (-1 when there is none);
  // after it pid() is -1.
  int wait() noexcept {
    if (pid_ <= 0) return -1;
    int status = -1;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  // SIGKILL and reap now (the destructor does it otherwise); after it pid() is -1.
  void stop() noexcept {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace plb::test
