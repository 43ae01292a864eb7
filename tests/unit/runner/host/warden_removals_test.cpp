// SPDX-License-Identifier: Apache-2.0
// The warden's removals side by side, against stand-in sockets (the real daemon is driven by
// tests/gvisor/warden_unanswered.sh, whose two frozen containers must be asked in one pass).
#include "runner/host/warden_removals.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../../harness/forked_child.hpp"
#include "../../temp_dir.hpp"
#include "../../unix_listener.hpp"

namespace plb::runner {
namespace {

std::vector<overdue_container> due(int n) {
  std::vector<overdue_container> out;
  for (int i = 0; i < n; ++i) out.push_back({"plb-sandbox-" + std::to_string(i), 100 * i});
  return out;
}

void reply(int client, const char* status_line) {
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && ::read(client, &c, 1) == 1) head += c;
  const std::string out = std::string("HTTP/1.1 ") + status_line + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  (void)!::send(client, out.data(), out.size(), MSG_NOSIGNAL);
  ::close(client);
}

// A daemon that answers only requests that are in flight `together` at once: it holds the
// connections it accepts until that many are open (then removes them all: 204), and answers any it
// held 2 s without the rest with 500. One after another, only the first of a pass would be answered
// before its 2 s were up, and with a 500.
class WardenRemovalsTogether : public test::temp_dir_test {
 protected:
  WardenRemovalsTogether() : temp_dir_test("plb-warden-removals") {}
  void start(int together) {
    socket_ = dir_ + "/docker.sock";
    const int listener = test::listen_on_unix(socket_, 32);
    ASSERT_GE(listener, 0);
    child_ = std::make_unique<test::forked_child>([listener, together] {
      std::vector<int> held;
      while (true) {
        pollfd p{listener, POLLIN, 0};
        const bool came = ::poll(&p, 1, 2000) == 1;
        if (came) held.push_back(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
        if (static_cast<int>(held.size()) == together || (!came && !held.empty())) {
          for (const int c : held) reply(c, came ? "204 No Content" : "500 Held Alone");
          held.clear();
        }
      }
    });
    ::close(listener);
    ASSERT_TRUE(*child_);
  }
  std::string socket_;
  std::unique_ptr<test::forked_child> child_;
};

// Every answer that start() set off, waited for (at most 20 s: the daemons hold theirs 2 s at most).
std::vector<removal_answer> all_answers(removals_in_flight& removals, std::size_t n) {
  std::vector<removal_answer> out;
  for (int i = 0; i < 400 && out.size() < n; ++i) {
    for (auto& a : removals.take_answers()) out.push_back(std::move(a));
    if (out.size() < n) ::usleep(50'000);
  }
  return out;
}

TEST_F(WardenRemovalsTogether, EveryDueContainerIsAskedAtOnce) {
  start(4);
  const docker_engine engine(socket_, std::chrono::seconds(10));
  removals_in_flight removals(engine);
  EXPECT_EQ(removals.start(due(4)), 4u);
  EXPECT_EQ(removals.start(due(4)), 0u) << "each is in flight already: asked once";
  EXPECT_TRUE(removals.asking("plb-sandbox-2"));
  const auto answers = all_answers(removals, 4);
  ASSERT_EQ(answers.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(answers[i].container.name, "plb-sandbox-" + std::to_string(i)) << "in the order started";
    EXPECT_EQ(answers[i].container.ms_past, 100 * i);
    ASSERT_TRUE(answers[i].removed) << answers[i].removed.error().message();
    EXPECT_TRUE(*answers[i].removed);
  }
  EXPECT_EQ(removals.in_flight(), 0u);
  EXPECT_FALSE(removals.asking("plb-sandbox-2")) << "answered: a later pass may ask again";
}

TEST_F(WardenRemovalsTogether, OneAtATimeTheFirstWaitsAlone) {
  start(2);
  const docker_engine engine(socket_, std::chrono::seconds(10));
  removals_in_flight removals(engine, 1);
  EXPECT_EQ(removals.start(due(2)), 1u) << "the bound: the second waits for a later pass";
  const auto answers = all_answers(removals, 1);
  ASSERT_EQ(answers.size(), 1u);
  ASSERT_FALSE(answers[0].removed) << "alone, it is held and refused";
  EXPECT_NE(answers[0].removed.error().message().find("500"), std::string::npos)
      << answers[0].removed.error().message();
}

TEST(WardenRemovals, AnUnreachableDaemonIsAnErrorForEach) {
  const docker_engine engine("/nonexistent/docker.sock", std::chrono::seconds(2));
  removals_in_flight removals(engine, 3);
  EXPECT_EQ(removals.start(due(5)), 3u);
  const auto answers = all_answers(removals, 3);
  ASSERT_EQ(answers.size(), 3u);
  for (const auto& a : answers) {
    ASSERT_FALSE(a.removed);
    EXPECT_EQ(a.removed.error().what, engine_error::kind::unreachable);
  }
  EXPECT_EQ(removals.start(due(5)), 3u) << "answered, so the bound has room again";
  EXPECT_EQ(removals.start({}), 0u);
}  // the destructor waits for the three still in flight

// However many removals keep failing, every due container is asked in turn: the one slot goes to
// those never asked first, then to the one asked longest ago.
TEST(WardenRemovals, FailingRemovalsLeaveTheirSlotsInTurn) {
  const docker_engine engine("/nonexistent/docker.sock", std::chrono::seconds(2));
  removals_in_flight removals(engine, 1);
  std::string asked;
  for (int pass = 0; pass < 5; ++pass) {
    ASSERT_EQ(removals.start(due(3)), 1u);
    const auto answers = all_answers(removals, 1);
    ASSERT_EQ(answers.size(), 1u);
    asked += answers[0].container.name.back();
  }
  EXPECT_EQ(asked, "01201") << "0 first (the list's order), then 1 and 2 never asked, then the oldest ask";
  ASSERT_EQ(removals.start({due(3)[2]}), 1u) << "a container no longer due is forgotten";
  ASSERT_EQ(all_answers(removals, 1).size(), 1u);
  ASSERT_EQ(removals.start(due(3)), 1u);
  EXPECT_EQ(all_answers(removals, 1)[0].container.name, "plb-sandbox-0") << "0 and 1 forgotten: never asked again";
}

}  // namespace
}  // namespace plb::runner
