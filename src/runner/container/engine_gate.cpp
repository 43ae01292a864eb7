// SPDX-License-Identifier: Apache-2.0
#include "runner/container/engine_gate.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <vector>

#include "support/child_process.hpp"
#include "support/failure.hpp"
#include "support/test_hold.hpp"
#include "support/unix_address.hpp"

namespace plb::runner {
namespace {

constexpr std::size_t chunk_bytes = std::size_t{64} * 1024;  // one pipe's worth per splice

unique_fd connect_to(const std::string& path) noexcept {
  const auto a = unix_address(path);
  if (!a) return {};
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s || ::connect(s.get(), reinterpret_cast<const sockaddr*>(&*a), sizeof *a) != 0) return {};
  if (::fcntl(s.get(), F_SETFL, O_NONBLOCK) != 0) return {};
  return s;
}

// One direction of one connection: bytes from `src` wait in a pipe until `dst` takes them.
struct direction {
  int src = -1, dst = -1;
  unique_fd pipe_read, pipe_write;
  std::size_t pending = 0;  // bytes in the pipe
  bool src_ended = false;   // EOF read, and passed on once the pipe is empty
  bool done = false;

  bool make_pipe() noexcept {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    pipe_read.reset(p[0]);
    pipe_write.reset(p[1]);
    return true;
  }

  // Moves what it can; false on an error that ends the connection.
  bool pump() noexcept {
    for (;;) {
      if (pending) {
        const ssize_t n = ::splice(pipe_read.get(), nullptr, dst, nullptr, pending, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n > 0) {
          pending -= static_cast<std::size_t>(n);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && errno == EAGAIN;  // wait for dst; anything else (EPIPE, reset) ends it
      }
      if (src_ended) {
        if (!done) ::shutdown(dst, SHUT_WR);  // the half-close, passed on
        done = true;
        return true;
      }
      const ssize_t n =
          ::splice(src, nullptr, pipe_write.get(), nullptr, chunk_bytes, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        pending = static_cast<std::size_t>(n);
        continue;
      }
      if (n == 0) {
        src_ended = true;
        continue;
      }
      if (errno == EINTR) continue;
      return errno == EAGAIN;
    }
  }

  short wanted_on_src() const noexcept { return !done && !pending && !src_ended ? POLLIN : 0; }
  short wanted_on_dst() const noexcept { return !done && pending ? POLLOUT : 0; }
};

struct relayed_connection {
  unique_fd client, daemon;
  direction up, down;  // client to daemon, daemon to client
  bool broken = false;
  bool finished() const noexcept { return broken || (up.done && down.done); }
};

bool peer_is(int fd, pid_t client) noexcept {
  ucred cred{};
  socklen_t len = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid == client;
}

}  // namespace

std::string engine_gate_path(const std::string& config_dir) { return config_dir + "/engine.sock"; }

engine_gate::engine_gate(std::string listen_path, std::string daemon_path)
    : path_(std::move(listen_path)), daemon_path_(std::move(daemon_path)) {
  const auto a = unix_address(path_);
  if (!a) fail(sandbox::verdict::internal_error, "the engine gate's path is too long: " + path_);
  listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listener_ || ::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&*a), sizeof *a) != 0)
    fail(sandbox::verdict::internal_error, "cannot create the engine gate " + path_ + ": " + std::strerror(errno));
  int p[2];
  if (::chmod(path_.c_str(), 0600) != 0 || ::listen(listener_.get(), 64) != 0 || ::pipe2(p, O_CLOEXEC) != 0) {
    const int e = errno;
    ::unlink(path_.c_str());
    fail(sandbox::verdict::internal_error, "cannot listen at the engine gate " + path_ + ": " + std::strerror(e));
  }
  wake_read_.reset(p[0]);
  wake_write_.reset(p[1]);
}

engine_gate::~engine_gate() {
  close();
  ::unlink(path_.c_str());
}

void engine_gate::open(pid_t client) {
  if (thread_.joinable() || !listener_) return;
  thread_ = std::thread([this, client] { relay(client); });
}

void engine_gate::close() noexcept {
  if (wake_write_) {
    const char stop = 0;
    [[maybe_unused]] const ssize_t n = ::write(wake_write_.get(), &stop, 1);
  }
  if (thread_.joinable()) thread_.join();
  listener_.reset();
  wake_write_.reset();
}

void engine_gate::relay(pid_t client) noexcept {
  // Its name marks the opening in a trace (tests/gvisor/count_calls.py splits the tool's requests
  // there) and in `ps -L`.
  ::prctl(PR_SET_NAME, gate_thread_name, 0, 0, 0);
  hold_at(hold_stage::gate_opened);  // before anything is relayed: the client's requests wait with the tool
  const sigpipe_blocked quiet;       // a peer gone mid-splice is an EPIPE here, not a signal
  std::list<relayed_connection> connections;
  std::vector<pollfd> fds;
  std::vector<relayed_connection*> owners;  // fds[2 + 2k], fds[3 + 2k] belong to owners[k]
  for (;;) {
    fds.assign({{wake_read_.get(), POLLIN, 0}, {listener_.get(), POLLIN, 0}});
    owners.clear();
    for (auto& c : connections) {
      fds.push_back({c.client.get(), static_cast<short>(c.up.wanted_on_src() | c.down.wanted_on_dst()), 0});
      fds.push_back({c.daemon.get(), static_cast<short>(c.down.wanted_on_src() | c.up.wanted_on_dst()), 0});
      owners.push_back(&c);
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;  // close(): the client is gone
    for (std::size_t k = 0; k < owners.size(); ++k) {
      relayed_connection& c = *owners[k];
      const short client_events = fds[2 + 2 * k].revents, daemon_events = fds[3 + 2 * k].revents;
      if (!(client_events | daemon_events)) continue;
      if (!c.up.pump() || !c.down.pump()) c.broken = true;
      // A side that hung up both ways keeps reporting POLLHUP: once what it sent has been passed
      // on, nothing can reach it any more, and polling it again would spin until the other side
      // closes too.
      constexpr short hung_up = POLLHUP | POLLERR;
      if (((client_events & hung_up) && c.up.done) || ((daemon_events & hung_up) && c.down.done)) c.broken = true;
    }
    connections.remove_if([](const relayed_connection& c) { return c.finished(); });
    if (fds[1].revents & POLLIN) {
      unique_fd s(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (!s) continue;
      if (!peer_is(s.get(), client)) {
        ++refused_;
        continue;  // closed unanswered
      }
      relayed_connection& c = connections.emplace_back();
      c.client = std::move(s);
      c.daemon = connect_to(daemon_path_);
      if (!c.daemon || !c.up.make_pipe() || !c.down.make_pipe()) {
        connections.pop_back();  // the client sees a reset, as it would from a daemon that is down
        continue;
      }
      c.up.src = c.down.dst = c.client.get();
      c.down.src = c.up.dst = c.daemon.get();
      ++relayed_;
      if (!c.up.pump() || !c.down.pump()) connections.pop_back();
    }
  }
}

}  // namespace plb::runner
