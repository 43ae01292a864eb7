// SPDX-License-Identifier: Apache-2.0
// A stand-in for the Docker daemon's socket, for the engine room's tests: a forked child listening
// on a unix socket in a temporary directory, answering each request with the reply given for its
// method and path (404 otherwise) and writing each request's first line and Host header to a log.
// The real daemon answers only what it holds; this one gives the statuses and bodies a test needs
// (a 500, a missing object, an endless list). The child is killed when the stand-in goes.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>

#include "../../../harness/forked_child.hpp"
#include "../../unix_listener.hpp"

namespace plb::test {

struct canned_reply {
  int status = 200;
  std::string body;
};

class stand_in_daemon {
 public:
  // `replies` by "METHOD /path" as the client sends it (the API version included).
  stand_in_daemon(const std::string& dir, std::map<std::string, canned_reply> replies)
      : socket_(dir + "/docker.sock"), log_(dir + "/requests.log") {
    const int listener = listen_on_unix(socket_, 16);
    if (listener < 0) return;
    child_ = std::make_unique<forked_child>([&] { serve(listener, replies); });
    ::close(listener);
  }

  bool ready() const noexcept { return child_ && *child_; }
  const std::string& socket_path() const noexcept { return socket_; }
  // Each request's "METHOD /path host" line, in order.
  std::string requests() const {
    std::ifstream in(log_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  void serve(int listener, const std::map<std::string, canned_reply>& replies) const {
    for (int client; (client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ::close(client)) {
      std::string head;
      char c;
      while (head.find("\r\n\r\n") == std::string::npos && ::read(client, &c, 1) == 1) head += c;
      const std::string line = head.substr(0, head.find(' ', head.find(' ') + 1));
      const auto host_at = head.find("\r\nHost: ");
      const std::string host =
          host_at == std::string::npos ? "-" : head.substr(host_at + 8, head.find("\r\n", host_at + 8) - host_at - 8);
      std::ofstream(log_, std::ios::app) << line << " " << host << "\n";
      const auto found = replies.find(line);
      const canned_reply reply =
          found == replies.end() ? canned_reply{404, R"({"message":"no such thing"})"} : found->second;
      const std::string out =
          "HTTP/1.1 " + std::to_string(reply.status) + " Canned\r\nContent-Type: application/json\r\n" +
          "Content-Length: " + std::to_string(reply.body.size()) + "\r\nConnection: close\r\n\r\n" + reply.body;
      for (std::size_t at = 0; at < out.size();) {
        const ssize_t n = ::send(client, out.data() + at, out.size() - at, MSG_NOSIGNAL);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
      }
    }
  }

  std::string socket_, log_;
  std::unique_ptr<forked_child> child_;
};

}  // namespace plb::test
