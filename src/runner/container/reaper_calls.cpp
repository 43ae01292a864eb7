// SPDX-License-Identifier: Apache-2.0
#include "runner/container/reaper_calls.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/engine/docker_engine.hpp"

namespace plb::runner::reaper_calls {

void log_once(const std::string& path, const std::string& line) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

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

int engine_call(const sockaddr_un& address, const std::string& request) noexcept {
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  const timeval tv{10, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int status = 0;
  if (::connect(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
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

}  // namespace plb::runner::reaper_calls
