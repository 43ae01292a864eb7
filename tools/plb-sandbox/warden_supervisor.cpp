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
// A warden that is alive but does not answer its status (SIGSTOPped, hung) bounds nothing either:
// the supervisor asks it once a second, and SIGKILLs and restarts one silent for 5 s.
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

#include "runner/for_cli.hpp"
#include "support/file_io.hpp"
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

void reap(pid_t child, int& status) {
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
}

// Whether `child` answers its status on the socket (the kernel's PID of the peer, not the line's).
bool answers(pid_t child, const std::string& socket_path) {
  const auto status = ping_warden(socket_path, warden_answer_timeout);
  return status && status->pid == static_cast<long>(child);
}

// "stopped (T)" for a warden someone SIGSTOPped: what the log says of one replaced.
std::string state_of(pid_t child) {
  std::string stat;
  if (const auto read = read_file("/proc/" + std::to_string(child) + "/stat", 4096)) stat = *read;
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return "state unknown";
  const char c = stat[close + 2];
  return std::string(c == 'T'   ? "stopped"
                     : c == 't' ? "traced"
                     : c == 'D' ? "in uninterruptible sleep"
                                : "running") +
         " (" + c + ")";
}

// Waits for `child` to end, or for SIGTERM/SIGINT (then stops it and waits for that). Once a
// second it asks the warden's status: a warden that has not answered for warden_unanswered (a
// SIGSTOP, a hang) is SIGKILLed and reaped, and counts as one that died (issue 41 item 5).
ended wait_for(pid_t child, const std::string& socket_path, const sigset_t& signals, int& status) {
  auto answered = std::chrono::steady_clock::now();  // a new warden has that long to start answering
  while (true) {
    const timespec second{1, 0};
    const int s = ::sigtimedwait(&signals, nullptr, &second);
    if (s == SIGTERM || s == SIGINT) {
      ::kill(child, SIGTERM);
      reap(child, status);
      return ended::stop;
    }
    if (s == SIGHUP) log_line("supervisor: SIGHUP: still supervising");
    if (::waitpid(child, &status, WNOHANG) == child) return ended::child;
    if (s == SIGCHLD) continue;  // a stop or a continue: judged by its answers, not by its state
    if (answers(child, socket_path)) {
      answered = std::chrono::steady_clock::now();
      continue;
    }
    const auto silent = std::chrono::steady_clock::now() - answered;
    if (silent < warden_unanswered) continue;
    log_line("supervisor: the warden (pid " + std::to_string(child) + ", " + state_of(child) +
             ") has not answered on " + socket_path + " for " +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(silent).count()) + " s; killing it");
    ::kill(child, SIGKILL);  // a stopped process dies of SIGKILL too
    reap(child, status);
    return ended::child;
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
    if (wait_for(child, socket_path, signals, status) == ended::stop) {
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
