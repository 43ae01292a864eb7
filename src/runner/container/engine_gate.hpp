// SPDX-License-Identifier: Apache-2.0
// The engine gate: the docker client's only way to the daemon, so that the client can start up
// alongside the preflight and still reach nothing before the host is known to be fit.
//
// The client's DOCKER_HOST names a unix socket in the run's private directory (root's, 0700).
// Until open(), its connections wait in the socket's backlog, unanswered: its Go runtime, flags
// and configuration (about 25 ms, more than the whole preflight) load meanwhile, and a refused
// preflight kills a client that never spoke to the daemon. From open() on, each connection of
// that client (SO_PEERCRED: its PID, nobody else's) is spliced to the daemon's socket, byte for
// byte in the kernel (splice(2) through a pipe, no copy here), each half-close passed on (the
// attach stream's end of stdin is one). The gate adds no request of its own: what the client
// sends is what the daemon gets.
//
// If this process dies, the listening socket goes with it: a client held at the gate gets a reset
// and can ask the daemon nothing. One relay thread serves every connection of one client.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>
#include <thread>

#include "support/file_io.hpp"

namespace plb::runner {

// The relay thread's name (at most 15 bytes): it names itself as the gate opens.
inline constexpr const char* gate_thread_name = "plb-engine-gate";

// Where the gate of a run whose docker client's private configuration is `config_dir` listens.
std::string engine_gate_path(const std::string& config_dir);

class engine_gate {
 public:
  // Listens at `listen_path` (which must not exist) and will relay to `daemon_path`. Throws
  // failure(internal_error) if it cannot listen.
  engine_gate(std::string listen_path, std::string daemon_path);
  // Closes every relayed connection and the listener, and removes the socket.
  ~engine_gate();
  engine_gate(const engine_gate&) = delete;
  engine_gate& operator=(const engine_gate&) = delete;

  // From now on the connections of process `client` reach the daemon; any other peer's are
  // closed unanswered. Once only.
  void open(pid_t client);
  // Stops relaying (the client is gone): idempotent, and what the destructor does first.
  void close() noexcept;

  const std::string& path() const noexcept { return path_; }
  // Connections relayed and refused so far (for tests and diagnostics).
  unsigned relayed() const noexcept { return relayed_.load(); }
  unsigned refused() const noexcept { return refused_.load(); }

 private:
  void relay(pid_t client) noexcept;

  std::string path_;
  std::string daemon_path_;
  unique_fd listener_;
  unique_fd wake_read_, wake_write_;
  std::thread thread_;
  std::atomic<unsigned> relayed_{0}, refused_{0};
};

}  // namespace plb::runner
