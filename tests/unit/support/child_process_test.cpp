// SPDX-License-Identifier: Apache-2.0
// What a docker client's process gets (child_process.hpp), seen from inside a real child: its own
// process group, SIGPIPE at its default and no signal blocked, only the CPUs it was given, and no
// descriptor of ours. And sigpipe_blocked: a write to a closed pipe costs EPIPE, never the process.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio.hpp>

#include "../../harness/forked_child.hpp"
#include "support/child_process.hpp"
#include "support/file_io.hpp"

namespace plb {
namespace {

struct child_report {
  int exit_code = -1;
  std::string out;
};

// Runs `path` with `args` through Boost.Process as the runner launches the docker client, with
// `setup` as its initializer, and returns its exit code and stdout. `setup` is a non-const object,
// as the runner's is: Boost.Process silently skips an initializer whose on_exec_setup it cannot call.
child_report run_child(child_setup setup, const std::string& path, const std::vector<std::string>& args) {
  boost::asio::io_context ctx;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const unique_fd read_end(fds[0]);
  unique_fd write_end(fds[1]);
  bp::error_code ec;
  bp::posix::default_launcher launcher;
  auto proc = launcher(ctx.get_executor(), ec, bp::filesystem::path(path), args,
                       bp::process_stdio{nullptr, write_end.get(), nullptr}, setup);
  if (ec) return {-1, "cannot start " + path + ": " + ec.message()};
  write_end.reset();
  child_report r;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(read_end.get(), buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) r.out.append(buf, static_cast<std::size_t>(n));
  r.exit_code = proc.wait();
  return r;
}

// The value of `key:` in a /proc/<pid>/status text, "" when absent.
std::string status_field(const std::string& status, const std::string& key) {
  std::istringstream in(status);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) == 0) {
      const auto start = line.find_first_not_of(" \t", key.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

TEST(ChildSetup, TheChildHasItsOwnGroupAndDefaultSignals) {
  // The test's thread ignores SIGPIPE (test_main) and here blocks SIGTERM too: neither may reach
  // the child, whose Ctrl-C and broken pipes must behave as for any program.
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, &old), 0);
  const child_report r = run_child(child_setup{}, "/bin/cat", {"/proc/self/status"});
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.out;

  EXPECT_EQ(status_field(r.out, "NSpgid"), status_field(r.out, "Pid")) << "setpgid(0, 0): its own process group";
  EXPECT_EQ(std::stoull(status_field(r.out, "SigBlk"), nullptr, 16), 0u) << "no signal blocked";
  const unsigned long long ignored = std::stoull(status_field(r.out, "SigIgn"), nullptr, 16);
  EXPECT_EQ(ignored & (1ull << (SIGPIPE - 1)), 0u) << "SIGPIPE back at its default";
}

TEST(ChildSetup, TheChildRunsOnlyOnTheCpusItWasGiven) {
  cpu_set_t mine;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mine)) last = cpu;
  ASSERT_GE(last, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last, &one);
  child_setup setup;
  setup.cpus = &one;
  const child_report r = run_child(setup, "/bin/cat", {"/proc/self/status"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(status_field(r.out, "Cpus_allowed_list"), std::to_string(last));
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&after, &mine)) << "the tool's own CPUs are untouched";
}

#if BOOST_VERSION < 108200
TEST(ChildSetup, NoDescriptorOfOursReachesTheChild) {
  // A descriptor opened without O_CLOEXEC, as a caller of the library might: Boost.Process 1.81
  // would pass it on; child_setup closes it.
  const unique_fd leaky(::open("/dev/null", O_RDONLY));
  ASSERT_TRUE(leaky);
  const std::string probe = "test -e /proc/self/fd/" + std::to_string(leaky.get());
  EXPECT_EQ(run_child(child_setup{}, "/bin/sh", {"-c", probe}).exit_code, 1) << "descriptor " << leaky.get();
  EXPECT_EQ(run_child(child_setup{}, "/bin/sh", {"-c", "test -e /proc/self/fd/2"}).exit_code, 0)
      << "the probe sees the standard descriptors";
}
#endif

// In a forked child with SIGPIPE at its default: if the guard let the pending SIGPIPE through on
// unblocking, the signal would kill the child instead of it exiting 0.
TEST(SigpipeBlocked, ABrokenPipeIsEpipeAndThePendingSignalIsConsumed) {
  test::forked_child child([] {
    ::signal(SIGPIPE, SIG_DFL);
    {
      const sigpipe_blocked guard;
      int fds[2];
      if (::pipe(fds) != 0) ::_exit(2);
      ::close(fds[0]);
      if (::write(fds[1], "x", 1) != -1 || errno != EPIPE) ::_exit(3);
      sigset_t pending;
      sigpending(&pending);
      if (!sigismember(&pending, SIGPIPE)) ::_exit(4);  // the kernel raised it, and it waits
    }
    sigset_t now;
    ::pthread_sigmask(SIG_SETMASK, nullptr, &now);
    if (sigismember(&now, SIGPIPE)) ::_exit(5);  // the thread's mask is back as it was
  });
  ASSERT_TRUE(child);
  const int status = child.wait();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(SigpipeBlocked, AMaskThatAlreadyBlockedSigpipeStaysSo) {
  test::forked_child child([] {
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
    { const sigpipe_blocked guard; }
    sigset_t now;
    ::pthread_sigmask(SIG_SETMASK, nullptr, &now);
    if (!sigismember(&now, SIGPIPE)) ::_exit(2);
  });
  ASSERT_TRUE(child);
  const int status = child.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace plb
