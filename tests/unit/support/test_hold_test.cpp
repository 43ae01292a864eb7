// SPDX-License-Identifier: Apache-2.0
// The test-only hold points (test_hold.hpp), each in a forked child that sets the variable for
// itself. Built with the holds (the dev preset): the named stage stops the process with SIGSTOP
// until SIGCONT, another stage passes, and a name that is no stage ends the process at once
// (exit 70) rather than leave a test waiting. Built without them: hold_at() does nothing at all.

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include "../../harness/forked_child.hpp"
#include "support/test_hold.hpp"

namespace plb {
namespace {

// The child's wait status once it has exited by itself.
int exit_status_of(test::forked_child& child) {
  const int status = child.wait();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#ifdef PLB_SANDBOX_TEST_HOLDS

TEST(TestHold, TheNamedStageStopsTheProcessUntilContinued) {
  test::forked_child child([] {
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", "started", 1);
    hold_at(hold_stage::reading_data);  // another stage: passes
    hold_at(hold_stage::started);       // stops here
    ::_exit(42);                        // after SIGCONT
  });
  ASSERT_TRUE(child);
  int status = 0;
  pid_t got;
  while ((got = ::waitpid(child.pid(), &status, WUNTRACED)) < 0 && errno == EINTR) {
  }
  ASSERT_EQ(got, child.pid());
  ASSERT_TRUE(WIFSTOPPED(status)) << "status " << status;
  EXPECT_EQ(WSTOPSIG(status), SIGSTOP);
  ASSERT_EQ(::kill(child.pid(), SIGCONT), 0);
  EXPECT_EQ(exit_status_of(child), 42) << "it goes on from the hold point";
}

TEST(TestHold, ANameThatIsNoStageEndsTheProcessAtTheFirstHold) {
  test::forked_child child([] {
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", "strated", 1);
    hold_at(hold_stage::reading_data);
    ::_exit(0);
  });
  ASSERT_TRUE(child);
  EXPECT_EQ(exit_status_of(child), 70);
}

#endif

TEST(TestHold, WithoutTheVariableEveryStagePasses) {
  test::forked_child child([] {
    ::unsetenv("PLB_SANDBOX_TEST_STOP_AT");
    for (const auto stage :
         {hold_stage::reading_data, hold_stage::gate_opened, hold_stage::started, hold_stage::reaped})
      hold_at(stage);
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", "", 1);
    hold_at(hold_stage::started);
    ::_exit(42);
  });
  ASSERT_TRUE(child);
  EXPECT_EQ(exit_status_of(child), 42);
}

#ifndef PLB_SANDBOX_TEST_HOLDS
TEST(TestHold, WithoutTheHoldsBuiltInTheVariableIsIgnored) {
  test::forked_child child([] {
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", "started", 1);
    hold_at(hold_stage::started);
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", "no-such-stage", 1);
    hold_at(hold_stage::started);
    ::_exit(42);
  });
  ASSERT_TRUE(child);
  EXPECT_EQ(exit_status_of(child), 42);
}
#endif

}  // namespace
}  // namespace plb
