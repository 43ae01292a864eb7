// SPDX-License-Identifier: Apache-2.0
// The Docker Engine API's transport: HTTP over the local unix socket, the only daemon this tool
// talks to. Only docker_engine.hpp (the typed client) builds requests; tests use this directly to
// read raw answers.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runner/engine/engine_error.hpp"

namespace plb::runner {

inline constexpr const char* docker_socket = "/var/run/docker.sock";
inline constexpr const char* engine_api_version = "v1.41";  // Docker Engine 20.10

struct engine_reply {
  int status = 0;
  std::string body;
};

class engine_transport {
 public:
  explicit engine_transport(std::string socket_path = docker_socket,
                            std::chrono::seconds timeout = std::chrono::seconds(30));

  // Any status is a reply; the error (kind unreachable) is when the daemon cannot be reached at all.
  engine_result<engine_reply> get(const std::string& path) const;
  engine_result<engine_reply> post(const std::string& path) const;
  engine_result<engine_reply> del(const std::string& path) const;
  // A GET whose body is handed to `sink` as it arrives and never held whole (an answer with no
  // size the tool can bound: the container list). The status, or unreachable; a sink that
  // returns false stops the read (the error then says the reply was refused).
  engine_result<int> get_streamed(const std::string& path, const std::function<bool(std::string_view)>& sink) const;

  const std::string& socket_path() const noexcept { return socket_; }

 private:
  enum class method { get, post, del };
  engine_result<engine_reply> request(method m, const std::string& path) const;

  std::string socket_;
  std::chrono::seconds timeout_;
};

}  // namespace plb::runner
