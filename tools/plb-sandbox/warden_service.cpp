// SPDX-License-Identifier: Apache-2.0
// The warden's service loop (see warden.hpp): one pass over the daemon a period on the main
// thread, the status line answered on another, so a slow daemon never makes the warden look dead
// to a preflight (the status then shows the pass's age instead).
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>
#include <unordered_set>

#include "runner/for_cli.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/unix_address.hpp"
#include "warden_daemon.hpp"
#include "warden_pass.hpp"
#include "warden_service.hpp"

namespace plb::cli {
namespace {

unique_fd listen_on(const std::string& socket_path) {
  const auto address = unix_address(socket_path);
  if (!address) fail(sandbox::verdict::usage_error, "socket path too long");
  ::unlink(socket_path.c_str());  // a dead warden's; the lock says no live one holds it
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s || ::bind(s.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0 ||
      ::chmod(socket_path.c_str(), 0600) != 0 || ::listen(s.get(), 16) != 0)
    fail(sandbox::verdict::host_refused, "cannot listen on " + socket_path + ": " + std::strerror(errno));
  return s;
}

// Answers every connection with the status line and closes it; a client that does not read
// costs at most the send timeout.
void answer(int listener, const warden_state& state) {
  while (true) {
    const int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      // Out of descriptors or memory for a moment: answering stops only as long as that lasts.
      if (errno != EINTR && errno != ECONNABORTED) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const unique_fd client(c);
    const timeval tv{1, 0};
    ::setsockopt(client.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const std::int64_t last = state.last_pass.load();
    warden_status s{static_cast<long>(::getpid()), last < 0 ? -1 : warden_monotonic_ms() - last,
                    state.removed.load(),          state.stuck.load(),
                    state.supervisor.load(),       log_lines_failed()};
    (void)write_all(client.get(), render_warden_status(s));
  }
}

// Until the next pass is due (a period after `started`) or a signal of `stop` comes (returned; 0
// for none): the answers of the removals in flight are logged as they land, within 50 ms, so a
// container's end is in the log by the time it is gone from the daemon's list.
int wait_for_next_pass(const sigset_t& stop, std::int64_t started, warden_state& state, warden_pass_memory& memory) {
  while (true) {
    const std::int64_t left = warden_period.count() - (warden_monotonic_ms() - started);
    // A pass that overran (a slow list) still takes a pending signal, with a wait of none.
    const std::int64_t slice = std::clamp<std::int64_t>(left, 0, 50);
    const timespec wait{0, static_cast<long>(slice) * 1'000'000};
    const int s = ::sigtimedwait(&stop, nullptr, &wait);
    if (s > 0) return s;
    log_removal_answers(state, memory);
    if (left <= 50) return 0;
  }
}

// The supervisor that started this warden, while it is still its parent (a supervisor names
// itself in the environment it starts the warden with).
long supervisor_of_this() {
  const char* named = std::getenv(supervisor_variable);
  const long ppid = static_cast<long>(::getppid());
  return named && std::to_string(ppid) == named ? ppid : 0;
}

// The supervisor died (the warden has a new parent): this process becomes the supervisor of a
// new warden. Its locks and sockets close on exec; the new warden takes them within milliseconds.
[[noreturn]] void become_supervisor(const std::string& socket_path, long was) {
  log_line("the supervisor (pid " + std::to_string(was) +
           ") is gone: this process becomes the supervisor of a new warden");
  const sigset_t none{};
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
  const char* argv[] = {"plb-sandbox", "warden", "--supervise", "--socket", socket_path.c_str(), nullptr};
  ::execv("/proc/self/exe", const_cast<char* const*>(argv));
  log_line(std::string("cannot become the supervisor: ") + std::strerror(errno) + "; the warden stops");
  std::_Exit(1);  // not 0: a supervisor above this one (systemd's unit) restarts it
}

}  // namespace

int run_warden(const std::string& socket_path) {
  const unique_fd lock = claim_directory(socket_path, "warden.lock", std::chrono::milliseconds(0));
  if (!lock) {
    log_line("another warden holds " + socket_path.substr(0, socket_path.rfind('/')) + "/warden.lock; exiting");
    return 0;
  }
  const unique_fd listener = listen_on(socket_path);
  // Blocked in every thread, then taken by sigtimedwait below: the pass is never interrupted midway.
  sigset_t stop;
  sigemptyset(&stop);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop, s);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  static warden_state state;  // outlives the detached answering thread
  state.supervisor.store(supervisor_of_this());
  std::thread(answer, listener.get(), std::cref(state)).detach();
  const docker_engine engine(docker_socket, std::chrono::seconds(10));
  log_line(
      "watching " + std::string(docker_socket) + " every " + std::to_string(warden_period.count()) + " ms; status on " +
      socket_path +
      (state.supervisor.load() ? "; supervised by pid " + std::to_string(state.supervisor.load()) : "; unsupervised"));
  warden_pass_memory memory(engine);
  while (true) {
    const std::int64_t started = warden_monotonic_ms();
    if (const long s = state.supervisor.load(); s != 0 && static_cast<long>(::getppid()) != s)
      become_supervisor(socket_path, s);
    retry_log();  // a backlog the log refused (a full disk) goes out as soon as it can
    warden_pass(engine, state, memory);
    const int s = wait_for_next_pass(stop, started, state, memory);
    if (s == SIGTERM || s == SIGINT) break;
    if (s == SIGHUP) log_line("SIGHUP: still watching");
  }
  log_line("stopping");
  ::unlink(socket_path.c_str());
  return 0;
}

int print_warden_status(const std::string& socket_path) {
  const auto status = ping_warden(socket_path, std::chrono::milliseconds(2000));
  if (!status) fail(sandbox::verdict::host_refused, status.error().detail);
  std::cout << render_warden_status(*status) << std::flush;
  return 0;
}

}  // namespace plb::cli
