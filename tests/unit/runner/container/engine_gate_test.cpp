// SPDX-License-Identifier: Apache-2.0
// The engine gate between real unix sockets: a stand-in daemon socket in a scratch directory on
// one side, this process as the client on the other. Nothing reaches the daemon before open(),
// only the named client's connections are relayed, bytes and half-closes pass unchanged, and
// close() ends every connection.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>

#include "../../../harness/forked_child.hpp"
#include "../../temp_dir.hpp"
#include "runner/container/engine_gate.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

sockaddr_un address_of(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  return a;
}

unique_fd listen_at(const std::string& path) {
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_un a = address_of(path);
  if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || ::listen(s.get(), 8) != 0) return {};
  return s;
}

unique_fd connect_at(const std::string& path) {
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_un a = address_of(path);
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) return {};
  return s;
}

bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1;
}

std::string read_exactly(int fd, std::size_t n) {
  std::string out;
  char buf[65536];
  while (out.size() < n && readable_within(fd, 5000)) {
    const ssize_t got = ::read(fd, buf, std::min(sizeof buf, n - out.size()));
    if (got <= 0) break;
    out.append(buf, static_cast<std::size_t>(got));
  }
  return out;
}

bool at_eof(int fd) {
  char c;
  return readable_within(fd, 5000) && ::read(fd, &c, 1) <= 0;
}

// MSG_NOSIGNAL: a gate that already closed the connection is an EPIPE and a failed assertion here,
// never a SIGPIPE that ends the whole binary.
void write_all_or_fail(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
}

class EngineGate : public test::temp_dir_test {
 protected:
  EngineGate() : temp_dir_test("plb-gate-test") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    daemon_ = listen_at(dir_ + "/daemon.sock");
    ASSERT_TRUE(daemon_);
  }
  std::string gate_path() const { return engine_gate_path(dir_); }
  unique_fd accept_daemon_side(int ms) {
    if (!readable_within(daemon_.get(), ms)) return {};
    return unique_fd(::accept4(daemon_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  }
  unique_fd daemon_;
};

TEST_F(EngineGate, NothingReachesTheDaemonBeforeItOpens) {
  engine_gate gate(gate_path(), dir_ + "/daemon.sock");
  const unique_fd client = connect_at(gate.path());  // waits in the backlog, as the docker client does
  ASSERT_TRUE(client);
  write_all_or_fail(client.get(), "HEAD /_ping HTTP/1.1\r\n\r\n");
  EXPECT_FALSE(accept_daemon_side(300)) << "a connection reached the daemon with the gate closed";
  EXPECT_FALSE(readable_within(client.get(), 0)) << "the client was answered with the gate closed";

  gate.open(::getpid());
  const unique_fd upstream = accept_daemon_side(5000);
  ASSERT_TRUE(upstream) << "the held connection was not relayed once the gate opened";
  EXPECT_EQ(read_exactly(upstream.get(), 24), "HEAD /_ping HTTP/1.1\r\n\r\n");
  write_all_or_fail(upstream.get(), "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(read_exactly(client.get(), 19), "HTTP/1.1 200 OK\r\n\r\n");
  EXPECT_EQ(gate.relayed(), 1u);
  EXPECT_EQ(gate.refused(), 0u);
}

TEST_F(EngineGate, HalfClosesPassOnAndLargeStreamsArriveWhole) {
  engine_gate gate(gate_path(), dir_ + "/daemon.sock");
  gate.open(::getpid());
  const unique_fd client = connect_at(gate.path());
  ASSERT_TRUE(client);
  const unique_fd upstream = accept_daemon_side(5000);
  ASSERT_TRUE(upstream);
  std::string big(8 * 1024 * 1024 + 7, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) ^ (i >> 11));
  std::thread writer([&] {
    write_all_or_fail(client.get(), big);
    ::shutdown(client.get(), SHUT_WR);  // the attach stream's end of stdin
  });
  EXPECT_TRUE(read_exactly(upstream.get(), big.size()) == big) << "the stream changed on its way through the gate";
  writer.join();
  EXPECT_TRUE(at_eof(upstream.get())) << "the client's half-close did not reach the daemon";
  // The other direction still flows after the half-close (the script's output comes back).
  write_all_or_fail(upstream.get(), "the predictions");
  EXPECT_EQ(read_exactly(client.get(), 15), "the predictions");
  ::shutdown(upstream.get(), SHUT_WR);
  EXPECT_TRUE(at_eof(client.get())) << "the daemon's close did not reach the client";
}

TEST_F(EngineGate, AnotherProcessIsNotRelayed) {
  const test::forked_child other([] { ::pause(); });  // killed and reaped on every way out
  ASSERT_TRUE(other);
  engine_gate gate(gate_path(), dir_ + "/daemon.sock");
  gate.open(other.pid());  // the client is someone else: this process's connection is a stranger's
  const unique_fd stranger = connect_at(gate.path());
  ASSERT_TRUE(stranger);
  // The gate may have refused the connection before this write: it must fail or pass, not kill.
  const std::string request = "POST /containers/create HTTP/1.1\r\n\r\n";
  (void)::send(stranger.get(), request.data(), request.size(), MSG_NOSIGNAL);
  EXPECT_TRUE(at_eof(stranger.get())) << "a stranger's connection was kept open";
  EXPECT_FALSE(accept_daemon_side(300)) << "a stranger's connection reached the daemon";
  EXPECT_EQ(gate.refused(), 1u);
  EXPECT_EQ(gate.relayed(), 0u);
}

TEST_F(EngineGate, CloseEndsEveryConnectionAndTheSocketGoes) {
  unique_fd client;
  unique_fd upstream;
  {
    engine_gate gate(gate_path(), dir_ + "/daemon.sock");
    gate.open(::getpid());
    client = connect_at(gate.path());
    ASSERT_TRUE(client);
    upstream = accept_daemon_side(5000);
    ASSERT_TRUE(upstream);
    EXPECT_TRUE(std::filesystem::exists(gate.path()));
  }
  EXPECT_TRUE(at_eof(client.get())) << "the client's connection outlived the gate";
  EXPECT_TRUE(at_eof(upstream.get())) << "the daemon's side outlived the gate";
  EXPECT_FALSE(std::filesystem::exists(gate_path())) << "the gate's socket was left behind";
  EXPECT_FALSE(connect_at(gate_path())) << "something still listens where the gate was";
}

TEST_F(EngineGate, APathThatExistsIsRefused) {
  const unique_fd planted = listen_at(gate_path());  // somebody else's socket where the gate goes
  ASSERT_TRUE(planted);
  EXPECT_THROW(engine_gate(gate_path(), dir_ + "/daemon.sock"), failure);
  EXPECT_TRUE(std::filesystem::exists(gate_path())) << "the gate removed a socket it did not make";
}

}  // namespace
}  // namespace plb::runner
