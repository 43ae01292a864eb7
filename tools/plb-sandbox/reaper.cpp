#include "reaper.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "docker_engine.hpp"
#include "failure.hpp"

namespace plb::tool {
namespace {

// Everything the child needs, prepared before fork: it allocates nothing afterwards.
struct reaper_plan {
  sockaddr_un address{};
  std::string kill_request, remove_request;
};

std::string engine_request(const char* method, const std::string& path) {
  return std::string(method) + " /" + engine_api_version + path +
         " HTTP/1.1\r\nHost: docker\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
}

std::int64_t now_ms() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

void sleep_ms(int ms) noexcept {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// One Engine API call; the HTTP status, or 0 when the daemon could not be reached.
int engine_call(const reaper_plan& plan, const std::string& request) noexcept {
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  const timeval tv{10, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int status = 0;
  if (::connect(s, reinterpret_cast<const sockaddr*>(&plan.address), sizeof plan.address) == 0) {
    std::size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n = ::send(s, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    char head[16];
    std::size_t got = 0;
    while (sent == request.size() && got < sizeof head) {
      const ssize_t n = ::recv(s, head + got, sizeof head - got, 0);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    // "HTTP/1.1 204 ..."
    if (got >= 12 && std::memcmp(head, "HTTP/1.", 7) == 0)
      status = (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
  }
  ::close(s);
  return status;
}

// The tool is gone: stop the client so nothing starts the container again, then remove it.
[[noreturn]] void remove_now(const reaper_plan& plan, int client_pidfd, pid_t client) noexcept {
  if (client_pidfd >= 0) {
    ::syscall(SYS_pidfd_send_signal, client_pidfd, SIGKILL, nullptr, 0);
    pollfd p{client_pidfd, POLLIN, 0};
    ::poll(&p, 1, 5000);
  } else if (client > 0) {
    ::kill(client, SIGKILL);
  }
  // Removal is confirmed by the daemon (204 or 404). A create still in flight when the client
  // died can land after a 404, so the name is removed again once more, a second later.
  const std::int64_t give_up = now_ms() + 120'000;
  int confirmed = 0;
  while (confirmed < 2 && now_ms() < give_up) {
    const int status = engine_call(plan, plan.remove_request);
    if (status == 204 || status == 404) {
      if (++confirmed == 2) break;
      sleep_ms(1000);
    } else {
      sleep_ms(250);
    }
  }
  ::_exit(0);
}

[[noreturn]] void watch(const reaper_plan& plan, int in) noexcept {
  std::int64_t deadline = -1;  // armed by 'S'
  bool killed = false;
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
    if (ready == 0) {  // the tool is alive but its run is past wall + grace: stop the container
      engine_call(plan, plan.kill_request);
      killed = true;
      continue;
    }
    const ssize_t n = ::read(in, message + have, sizeof message - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) remove_now(plan, client_pidfd, client);  // the tool died (or closed without release)
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

reaper::reaper(const std::string& socket_path, const std::string& container_name) {
  reaper_plan plan;
  plan.address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof plan.address.sun_path)
    fail(sandbox::verdict::internal_error, "socket path too long");
  std::memcpy(plan.address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  plan.kill_request = engine_request("POST", "/containers/" + container_name + "/kill?signal=KILL");
  plan.remove_request = engine_request("DELETE", "/containers/" + container_name + "?force=1");

  // A socket pair rather than a pipe: the tool's writes use MSG_NOSIGNAL, so a reaper that died
  // can never kill the tool with SIGPIPE.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    fail(sandbox::verdict::internal_error, "cannot start the reaper: " + std::string(std::strerror(errno)));
  unique_fd read_end(fds[0]);
  pipe_.reset(fds[1]);

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

void reaper::start(std::chrono::milliseconds wall) noexcept {
  send('S', static_cast<std::uint64_t>((wall + reaper_grace).count()));
}

void reaper::watch_client(pid_t client) noexcept { send('P', static_cast<std::uint64_t>(client)); }

void reaper::release() noexcept {
  send('D', 0);
  pipe_.reset();
}

}  // namespace plb::tool
