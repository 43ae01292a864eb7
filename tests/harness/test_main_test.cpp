// SPDX-License-Identifier: Apache-2.0
// The harness itself: the test main ignores SIGPIPE, and forked_child kills and reaps its child on
// every way out of a test, an early return included.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "forked_child.hpp"

namespace plb::test {
namespace {

TEST(TestMain, SigpipeIsIgnored) {
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_IGN) << "a write to a closed socket would kill the whole test binary";
}

TEST(TestMain, AWriteToAClosedSocketIsAnErrorNotADeath) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  ::close(fds[1]);
  errno = 0;
  EXPECT_EQ(::write(fds[0], "x", 1), -1);
  EXPECT_EQ(errno, EPIPE);
  ::close(fds[0]);
}

// Whether `pid` is still a child of this process that has not been reaped.
bool unreaped(pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) == 0; }

// A process that exists and is not a zombie (a reparented one waits for init to reap it).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  if (!(stat >> pid_field >> comm >> state)) return false;
  return state != "Z" && state != "X";
}

pid_t child_left_by_an_early_return() {
  forked_child child([] { ::pause(); });
  return child.pid();  // the guard's destructor runs here, as on an ASSERT's return
}

TEST(ForkedChild, AnEarlyReturnKillsAndReapsTheChild) {
  const pid_t pid = child_left_by_an_early_return();
  ASSERT_GT(pid, 0);
  errno = 0;
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << "the child is still ours: not reaped";
  EXPECT_EQ(errno, ECHILD);
  EXPECT_FALSE(running(pid)) << "the child still runs";
}

TEST(ForkedChild, StopEndsItAtOnce) {
  forked_child child([] { ::pause(); });
  ASSERT_TRUE(child);
  EXPECT_TRUE(unreaped(child.pid()));
  child.stop();
  EXPECT_EQ(child.pid(), -1);
}

TEST(ForkedChild, TheChildDiesWithItsParent) {
  int ready[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  // A middle process forks a grandchild through the guard, then dies without running its
  // destructor: the grandchild must die with it (PR_SET_PDEATHSIG).
  forked_child middle([&] {
    forked_child grandchild([] { ::pause(); });
    const pid_t g = grandchild.pid();
    (void)!::write(ready[1], &g, sizeof g);
    ::pause();
  });
  ASSERT_TRUE(middle);
  pid_t grandchild = -1;
  ASSERT_EQ(::read(ready[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_GT(grandchild, 0);
  ASSERT_TRUE(running(grandchild));
  middle.stop();
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {  // the kernel delivers the parent-death signal: wait for it
    gone = !running(grandchild);
    if (!gone) ::usleep(10'000);
  }
  EXPECT_TRUE(gone) << "the grandchild outlived its parent";
}

}  // namespace
}  // namespace plb::test
