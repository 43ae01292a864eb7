// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox warden --supervise`: what restarts a dead warden on a host without systemd (and
// under systemd's unit too, which restarts this in turn). It does nothing but wait for its one
// child, so little can kill it:
//   - the OOM killer passes it over (oom_score_adj -1000; the warden gets -500: bounded, but it
//     allocates, and a warden the OOM killer takes is restarted here);
//   - a job's or a session's cgroup kill does not reach it (ci/host/daemonize puts it in a cgroup of
//     its own, the unit in the unit's);
//   - SIGKILL of it alone: the warden sees its parent change within a period and execs itself
//     into a new supervisor (warden_service.cpp), which starts a new warden.
// Only SIGKILL of both at once, or of their cgroup, ends the bound: the next preflight then finds
// no warden and refuses the host, and the log's last line is the last pass.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "warden_daemon.hpp"
#include "warden_service.hpp"

namespace plb::cli {
namespace {

void set_oom_score_adj(const char* value) noexcept {  // async-signal-safe: the child calls it too
  const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)!::write(fd, value, std::strlen(value));
  ::close(fd);
}

// The warden from this same binary (a build's supervisor restarts that build's warden).
pid_t start_warden(const std::string& socket_path) {
  const char* argv[] = {"plb-sandbox", "warden", "--socket", socket_path.c_str(), nullptr};
  const pid_t child = ::fork();
  if (child != 0) return child;
  const sigset_t none{};
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  set_oom_score_adj("-500");
  ::execv("/proc/self/exe", const_cast<char* const*>(argv));
  ::_exit(127);
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = ::sigabbrev_np(WTERMSIG(status));
    return std::string("killed by SIG") + (name ? name : "?");
  }
  return "exited " + std::to_string(WEXITSTATUS(status));
}

enum class ended : std::uint8_t { child, stop };

// Waits for `child` to end, or for SIGTERM/SIGINT (then stops it and waits for that).
ended wait_for(pid_t child, const sigset_t& signals, int& status) {
  while (true) {
    siginfo_t info{};
    const int s = ::sigwaitinfo(&signals, &info);
    if (s == SIGTERM || s == SIGINT) {
      ::kill(child, SIGTERM);
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      return ended::stop;
    }
    if (s == SIGHUP) log_line("supervisor: SIGHUP: still supervising");
    if (::waitpid(child, &status, WNOHANG) == child) return ended::child;
  }
}

// A second's pause before a restart, cut short by a stop; true: stop.
bool pause_before_restart(const sigset_t& signals) {
  const timespec second{1, 0};
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < until) {
    const int s = ::sigtimedwait(&signals, nullptr, &second);
    if (s == SIGTERM || s == SIGINT) return true;
  }
  return false;
}

}  // namespace

int run_warden_supervisor(const std::string& socket_path) {
  // A supervisor stopping as its warden stopped may still hold the lock for a moment: wait a little.
  const unique_fd lock = claim_directory(socket_path, "supervisor.lock", std::chrono::seconds(5));
  if (!lock) {
    log_line("supervisor: another supervisor holds the lock; exiting");
    return 0;
  }
  set_oom_score_adj("-1000");
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&signals, s);
  ::sigprocmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  ::setenv(supervisor_variable, std::to_string(::getpid()).c_str(), 1);
  log_line("supervisor pid " + std::to_string(::getpid()) + ": starts the warden, and again whenever it dies");
  while (true) {
    const auto started = std::chrono::steady_clock::now();
    const pid_t child = start_warden(socket_path);
    if (child < 0) {
      log_line(std::string("supervisor: cannot start the warden (") + std::strerror(errno) + "); retrying");
      if (pause_before_restart(signals)) return 0;
      continue;
    }
    int status = 0;
    if (wait_for(child, signals, status) == ended::stop) {
      log_line("supervisor: stopped; the warden (pid " + std::to_string(child) + ") " + how_it_ended(status));
      return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      log_line("supervisor: the warden (pid " + std::to_string(child) + ") stopped cleanly; stopping too");
      return 0;
    }
    log_line("supervisor: the warden (pid " + std::to_string(child) + ") died (" + how_it_ended(status) +
             "); restarting it");
    // One that dies at once (an unsafe state directory, say) is restarted once a second, not in a spin.
    if (std::chrono::steady_clock::now() - started < std::chrono::seconds(10) && pause_before_restart(signals))
      return 0;
  }
}

}  // namespace plb::cli
