// SPDX-License-Identifier: Apache-2.0
// A trusted host command (command.hpp), run for real: its arguments reach it as given, word for
// word; it gets PATH and nothing else of ours; what it prints is kept, at most 64 KiB a stream;
// and a command that cannot start or does not finish is a failure(host_refused), not a hang.

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/command.hpp"
#include "support/failure.hpp"

namespace plb {
namespace {

using namespace std::chrono_literals;

TEST(RunCommand, ArgumentsReachTheCommandWordForWord) {
  const command_output r = run_command("/usr/bin/printf", {"[%s]", "two words", "$HOME", "*", ""}, 10s);
  EXPECT_EQ(r.out, "[two words][$HOME][*][]") << "no shell: no splitting, no expansion, no globbing";
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(RunCommand, KeepsStdoutStderrAndTheExitStatusApart) {
  const command_output r = run_command("/bin/sh", {"-c", "echo to-out; echo to-err >&2; exit 3"}, 10s);
  EXPECT_EQ(r.out, "to-out\n");
  EXPECT_EQ(r.err, "to-err\n");
  EXPECT_EQ(r.exit_code, 3);
}

TEST(RunCommand, TheCommandGetsPathAndNothingElse) {
  ::setenv("PLB_COMMAND_TEST_SECRET", "must-not-leak", 1);
  const command_output r = run_command("/usr/bin/env", {}, 10s);
  ::unsetenv("PLB_COMMAND_TEST_SECRET");
  EXPECT_EQ(r.out, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n");
  EXPECT_EQ(r.exit_code, 0);
}

TEST(RunCommand, EachStreamIsCappedAndTheCommandStillFinishes) {
  // 1 MiB on each stream: the reader keeps 64 KiB and drains the rest, so the command never
  // blocks on a full pipe and its exit status arrives.
  const command_output r =
      run_command("/bin/sh", {"-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2; exit 5"}, 20s);
  EXPECT_EQ(r.out.size(), 65536u);
  EXPECT_EQ(r.err.size(), 65536u);
  EXPECT_EQ(r.out.find_first_not_of('\0'), std::string::npos);
  EXPECT_EQ(r.exit_code, 5);
}

TEST(RunCommand, ACommandThatCannotStartIsHostRefused) {
  try {
    run_command("/nonexistent/plb-no-such-binary", {}, 10s);
    FAIL() << "no failure";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::host_refused);
    EXPECT_NE(std::string(f.what()).find("cannot run /nonexistent/plb-no-such-binary"), std::string::npos) << f.what();
  }
}

TEST(RunCommand, ACommandPastItsTimeoutIsTerminatedAndHostRefused) {
  const auto start = std::chrono::steady_clock::now();
  try {
    run_command("/bin/sleep", {"30"}, 1s);
    FAIL() << "no failure";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::host_refused);
    EXPECT_EQ(std::string(f.what()), "/bin/sleep did not finish within 1 s");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << "the deadline ended the wait, not the command";
}

TEST(CaptureCommand, StdoutOnlyWhateverTheExitStatus) {
  EXPECT_EQ(capture_command("/bin/sh", {"-c", "echo kept; echo dropped >&2; exit 1"}, 10s), "kept\n");
}

}  // namespace
}  // namespace plb
