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

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>

#include "runner/for_cli.hpp"
#include "warden_service.hpp"
#include "support/unix_address.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"

namespace plb::cli {
namespace {

std::int64_t monotonic_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void log_line(const std::string& text) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::cerr << stamp << " plb-sandbox warden: " << text << std::endl;
}

struct shared_state {
  std::atomic<std::int64_t> last_pass{-1};  // monotonic ms of the last complete pass
  std::atomic<std::uint64_t> removed{0};
  std::atomic<std::uint64_t> stuck{0};  // at the last pass: overdue by warden_stuck_seconds, still there
};

// The directory is root's and writable by root only, so only root can have bound the socket; the
// socket itself is root's alone (0600: the tool runs as root), so no other user can flood it.
unique_fd claim_directory(const std::string& socket_path) {
  const std::string dir = socket_path.substr(0, socket_path.rfind('/'));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail(sandbox::verdict::host_refused, "cannot create " + dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
    fail(sandbox::verdict::host_refused, dir + " must be a real directory, root's, writable by root only");
  unique_fd lock(::open((dir + "/warden.lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock) fail(sandbox::verdict::host_refused, "cannot open " + dir + "/warden.lock: " + std::strerror(errno));
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return unique_fd{};
  return lock;
}

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
void answer(int listener, const shared_state& state) {
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
    warden_status s{static_cast<long>(::getpid()), last < 0 ? -1 : monotonic_ms() - last, state.removed.load(),
                    state.stuck.load()};
    (void)write_all(client.get(), render_warden_status(s));
  }
}

// One look at the daemon: every overdue container of the tool's is removed (a running one is
// killed by the forced removal). A container that could not be removed is tried again next pass.
void pass(const docker_engine& engine, shared_state& state, bool& daemon_down) {
  const auto listed = engine.list_labelled();
  if (!listed) {
    if (!daemon_down) log_line("the Docker daemon does not answer (" + listed.error().message() + "); retrying");
    daemon_down = true;
    return;
  }
  if (daemon_down) log_line("the Docker daemon answers again");
  daemon_down = false;
  std::uint64_t stuck = 0;
  for (const auto& o : overdue(*listed, std::time(nullptr))) {
    const auto removed = engine.remove(o.name);
    if (!removed) {
      stuck += o.seconds_past >= warden_stuck_seconds ? 1 : 0;
      log_line("could not remove " + o.name + " (" + removed.error().message() + "); retrying");
      continue;
    }
    if (!*removed) continue;  // gone meanwhile
    state.removed.fetch_add(1);
    log_line("removed " + o.name + ": " + std::to_string(o.seconds_past) + " s past its deadline");
  }
  state.stuck.store(stuck);
  state.last_pass.store(monotonic_ms());
}

}  // namespace

int run_warden(const std::string& socket_path) {
  const unique_fd lock = claim_directory(socket_path);
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
  static shared_state state;  // outlives the detached answering thread
  std::thread(answer, listener.get(), std::cref(state)).detach();
  const docker_engine engine(docker_socket, std::chrono::seconds(10));
  log_line("watching " + std::string(docker_socket) + " every " + std::to_string(warden_period.count()) +
           " ms; status on " + socket_path);
  bool daemon_down = false;
  while (true) {
    const std::int64_t started = monotonic_ms();
    pass(engine, state, daemon_down);
    const std::int64_t left = std::max<std::int64_t>(0, warden_period.count() - (monotonic_ms() - started));
    const timespec wait{static_cast<time_t>(left / 1000), static_cast<long>(left % 1000) * 1'000'000};
    const int s = ::sigtimedwait(&stop, nullptr, &wait);
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
