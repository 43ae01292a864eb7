// SPDX-License-Identifier: Apache-2.0
// The main of every test binary (instead of GoogleTest's own): SIGPIPE is ignored before any test
// runs, so a test that writes to a socket or pipe whose reader is gone gets EPIPE and fails where
// it stands, instead of the whole binary dying silently at "[ RUN ]" with its children still
// holding ctest's pipe. tests/harness/test_main_test.cpp checks that it did.
#include <signal.h>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
