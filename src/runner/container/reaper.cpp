// SPDX-License-Identifier: Apache-2.0
#include "runner/container/reaper.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/container/reaper_calls.hpp"
#include "runner/container/watchdog_weight.hpp"
#include "runner/engine/docker_engine.hpp"
#include "runner/state/state_dirs.hpp"
#include "support/failure.hpp"
#include "support/unix_address.hpp"

namespace plb::runner {
namespace {

using namespace reaper_calls;

// Everything the child needs, prepared before fork: it allocates nothing afterwards.
struct reaper_plan {
  sockaddr_un address{};
  std::string kill_request, remove_request;
  std::int64_t window_ms = 0;            // bound + grace: how long the name is enforced after the tool is gone
  std::string log_path;                  // one line per problem, in the state directory
  std::string kill_stuck, remove_stuck;  // those lines, written before fork
  std::string weight = watchdog_cgroup_file("/sys/fs/cgroup", "cgroup.procs");  // watchdog_weight.hpp
};

// The daemon confirmed a removal: 204 removed, 404 no such container (any more).
bool confirmed(int status) noexcept { return status == 204 || status == 404; }
// ... or a kill: 204 killed, 409 not running. A 404 confirms nothing here: a slow client may
// still create the container.
bool kill_confirmed(int status) noexcept { return status == 204 || status == 409; }

// The tool is gone: stop the client so nothing starts the container again, then remove it by
// name until the daemon confirms, and keep doing so until `until`: a client that was slow to
// create the container (or whose PID never reached the reaper) cannot start it behind its back.
[[noreturn]] void remove_now(const reaper_plan& plan, int client_pidfd, pid_t client, std::int64_t until) noexcept {
  if (client_pidfd >= 0) {
    ::syscall(SYS_pidfd_send_signal, client_pidfd, SIGKILL, nullptr, 0);
    pollfd p{client_pidfd, POLLIN, 0};
    ::poll(&p, 1, 5000);
  } else if (client > 0) {
    ::kill(client, SIGKILL);
  }
  const std::int64_t stuck_after = now_ms() + 120'000;
  bool logged = false;
  int confirmations = 0;
  while (confirmations < 2 || now_ms() < until) {
    if (confirmed(engine_call(plan.address, plan.remove_request))) {
      ++confirmations;
      sleep_ms(1000);
      continue;
    }
    // The daemon did not confirm: retry, as long as it takes, and say so once.
    if (!logged && now_ms() > stuck_after) {
      log_once(plan.log_path, plan.remove_stuck);
      logged = true;
    }
    sleep_ms(logged ? 5000 : 250);
  }
  ::_exit(0);
}

[[noreturn]] void watch(const reaper_plan& plan, int in) noexcept {
  std::int64_t deadline = -1;  // armed by 'S'
  bool killed = false, kill_logged = false;
  int client_pidfd = -1;
  pid_t client = 0;
  unsigned char message[9];
  std::size_t have = 0;
  while (true) {
    int timeout = -1;
    if (deadline >= 0 && !killed) {
      const std::int64_t left = deadline - now_ms();
      timeout = left <= 0 ? 0 : static_cast<int>(left);
    }
    pollfd p{in, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {  // the tool is alive but its run is past its deadline + grace: stop the container
      const int status = engine_call(plan.address, plan.kill_request);
      killed = kill_confirmed(status);
      if (!killed) {  // not there yet (404), or not confirmed: try again shortly, and say so once
        if (status != 404 && !kill_logged) log_once(plan.log_path, plan.kill_stuck);
        kill_logged |= status != 404;
        deadline = now_ms() + (status == 404 ? 1000 : 250);
      }
      continue;
    }
    const ssize_t n = ::read(in, message + have, sizeof message - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the tool died (or closed without release): the name is enforced to the deadline
      const std::int64_t until = deadline >= 0 ? deadline : now_ms() + plan.window_ms;
      remove_now(plan, client_pidfd, client, until);
    }
    have += static_cast<std::size_t>(n);
    if (have < sizeof message) continue;
    have = 0;
    std::uint64_t value = 0;
    std::memcpy(&value, message + 1, sizeof value);
    switch (message[0]) {
      case 'D': ::_exit(0);
      case 'S': deadline = now_ms() + static_cast<std::int64_t>(value); break;
      case 'P':
        client = static_cast<pid_t>(value);
        // The client is the tool's child and not yet reaped, so this names it and nothing else.
        client_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, client, 0));
        break;
      default: break;
    }
  }
}

}  // namespace

reaper::reaper(const std::string& socket_path, const std::string& container_name, std::chrono::milliseconds bound) {
  reaper_plan plan;
  plan.window_ms = (bound + reaper_grace).count();
  plan.log_path = std::string(state_dir) + "/reaper.log";
  plan.kill_stuck =
      "plb-sandbox reaper: the daemon did not confirm the kill of " + container_name + " past its deadline; retrying\n";
  plan.remove_stuck = "plb-sandbox reaper: the daemon has not confirmed the removal of " + container_name +
                      " for 120 s; still trying every 5 s\n";
  const auto address = unix_address(socket_path);
  if (!address) fail(sandbox::verdict::internal_error, "socket path too long");
  plan.address = *address;
  plan.kill_request = engine_request("POST", "/containers/" + container_name + "/kill?signal=KILL");
  plan.remove_request = engine_request("DELETE", "/containers/" + container_name + "?force=1");

  // A socket pair rather than a pipe: the tool's writes use MSG_NOSIGNAL, so a reaper that died
  // can never kill the tool with SIGPIPE.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail(sandbox::verdict::internal_error, "cannot start the reaper: " + std::string(std::strerror(errno)));
  // Both ends above the standard descriptors: a tool started with fd 0, 1 or 2 closed would get
  // one of them, and the child's dup2 of /dev/null onto 0-2 would then clobber its pipe.
  unique_fd read_end(::fcntl(fds[0], F_DUPFD_CLOEXEC, 3));
  pipe_.reset(::fcntl(fds[1], F_DUPFD_CLOEXEC, 3));
  ::close(fds[0]);
  ::close(fds[1]);
  if (!read_end || !pipe_)
    fail(sandbox::verdict::internal_error, "cannot start the reaper: " + std::string(std::strerror(errno)));

  const pid_t first = ::fork();
  if (first < 0)
    fail(sandbox::verdict::internal_error, "cannot start the reaper: " + std::string(std::strerror(errno)));
  if (first == 0) {
    // Its own session: no terminal or process-group signal meant for the tool reaches it.
    ::setsid();
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGHUP, &ignore, nullptr);
    ::sigaction(SIGPIPE, &ignore, nullptr);
    const pid_t second = ::fork();
    if (second != 0) ::_exit(second < 0 ? 1 : 0);
    // Named for `ps`: an operator sees a reaper, not a second copy of the run.
    ::prctl(PR_SET_NAME, "plb-sandbox-rip", 0, 0, 0);
    // It outweighs the runs for its life, where the host has the watchdogs' cgroup (cpu only).
    (void)join_cgroup_file(plan.weight.c_str());
    // Only the pipe's read end survives, as descriptor 3: no lock, socket or output of the tool's.
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    ::dup2(read_end.get(), 3);
    ::syscall(SYS_close_range, 4u, ~0u, 0u);
    watch(plan, 3);
  }
  read_end.reset();
  int status = 0;
  while (::waitpid(first, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(sandbox::verdict::internal_error, "cannot start the reaper");
}

reaper::~reaper() = default;

void reaper::send(char kind, std::uint64_t value) noexcept {
  unsigned char message[9];
  message[0] = static_cast<unsigned char>(kind);
  std::memcpy(message + 1, &value, sizeof value);
  std::size_t sent = 0;
  while (pipe_ && sent < sizeof message) {
    const ssize_t n = ::send(pipe_.get(), message + sent, sizeof message - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

void reaper::start(std::chrono::milliseconds bound) noexcept {
  send('S', static_cast<std::uint64_t>((bound + reaper_grace).count()));
}

void reaper::watch_client(pid_t client) noexcept { send('P', static_cast<std::uint64_t>(client)); }

bool reaper::alive() const noexcept {
  if (!pipe_) return false;
  // The reaper never writes: readable means end of file, which means it is gone.
  pollfd p{pipe_.get(), POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 0;
}

void reaper::release() noexcept {
  send('D', 0);
  pipe_.reset();
}

}  // namespace plb::runner
