// SPDX-License-Identifier: Apache-2.0
// The client's two pipes drained under one cap, with a forked child as the writer: stdout kept
// byte for byte and stderr dropped while both stay under the cap; past it nothing is kept, the
// cap is reported once, and both pipes are still read to their end (a writer blocked on a full
// pipe would never exit, and this test would time out). With --keep-stderr, stderr's last bytes
// are kept in a bounded tail, and only while the output is under the cap.
#include "runner/container/output_drain.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include <boost/asio.hpp>

#include "../../../harness/forked_child.hpp"

namespace plb::runner {
namespace {

struct drained {
  std::string out;
  std::size_t bytes = 0;
  bool exceeded = false;
  int caps = 0;
  int child_status = -1;
  std::optional<sandbox::stderr_tail> tail;
};

// A child writes `out` to one pipe and `err` to the other, interleaved; the drain reads both.
drained drain(std::size_t cap, const std::string& out, const std::string& err, std::size_t tail = 0) {
  int o[2], e[2];
  if (::pipe2(o, O_CLOEXEC) != 0 || ::pipe2(e, O_CLOEXEC) != 0) return {};
  test::forked_child writer([&] {
    ::close(o[0]);
    ::close(e[0]);
    for (std::size_t at = 0; at < out.size() || at < err.size(); at += 4096) {
      if (at < out.size() && ::write(o[1], out.data() + at, std::min<std::size_t>(4096, out.size() - at)) < 0)
        ::_exit(1);
      if (at < err.size() && ::write(e[1], err.data() + at, std::min<std::size_t>(4096, err.size() - at)) < 0)
        ::_exit(2);
    }
  });
  ::close(o[1]);
  ::close(e[1]);
  boost::asio::io_context io;
  boost::asio::readable_pipe out_pipe(io, o[0]), err_pipe(io, e[0]);
  drained d;
  output_drain drain(cap, tail, [&d] { ++d.caps; });
  drain.start(out_pipe, err_pipe);
  io.run();  // returns once both pipes have ended
  d.out = drain.take_stdout();
  d.bytes = drain.bytes();
  d.exceeded = drain.cap_exceeded();
  d.tail = drain.take_stderr_tail();
  d.child_status = writer.wait();
  return d;
}

TEST(OutputDrain, UnderTheCapStdoutIsKeptAndStderrDropped) {
  std::string out;
  for (int i = 0; i < 20000; ++i) out += std::to_string(i) + "\n";
  const drained d = drain(1 << 20, out, std::string(30000, 'e'));
  EXPECT_EQ(d.out, out);
  EXPECT_EQ(d.bytes, out.size() + 30000);
  EXPECT_FALSE(d.exceeded);
  EXPECT_EQ(d.caps, 0);
  EXPECT_EQ(d.child_status, 0);
}

// Issue 41 item 8: grown by doubling, the kept stdout was copied at each step and held its old half
// beside the new whole (384 MiB at the API's 256 MiB cap). It is allocated once, at the cap.
TEST(OutputDrain, StdoutIsAllocatedOnceAtTheCapNeverGrownByCopies) {
  std::string out;
  for (int i = 0; i < 20000; ++i) out += std::to_string(i) + "\n";
  const drained d = drain(1 << 20, out, "");
  EXPECT_EQ(d.out, out);
  EXPECT_GE(d.out.capacity(), std::size_t{1} << 20);
  EXPECT_LT(d.out.capacity(), (std::size_t{1} << 20) + 4096);
}

TEST(OutputDrain, StderrCountsAgainstTheSameCap) {
  const drained d = drain(1000, std::string(600, 'o'), std::string(600, 'e'));
  EXPECT_TRUE(d.exceeded);
  EXPECT_EQ(d.caps, 1);
  EXPECT_EQ(d.bytes, 1200u);
  EXPECT_TRUE(d.out.empty()) << "nothing is kept once the cap is passed";
}

TEST(OutputDrain, PastTheCapBothPipesAreStillReadToTheirEnd) {
  const drained d = drain(4096, std::string(4 << 20, 'o'), std::string(4 << 20, 'e'));
  EXPECT_EQ(d.child_status, 0) << "the writer finished: nothing stopped reading";
  EXPECT_EQ(d.bytes, std::size_t{8} << 20);
  EXPECT_EQ(d.caps, 1) << "reported once";
  EXPECT_TRUE(d.out.empty());
}

TEST(OutputDrain, ExactlyTheCapIsWithinIt) {
  const drained d = drain(5000, std::string(5000, 'o'), "");
  EXPECT_FALSE(d.exceeded);
  EXPECT_EQ(d.out.size(), 5000u);
}

TEST(OutputDrain, WithoutATailStderrIsNeverKept) {
  const drained d = drain(1 << 20, "o", std::string(3000, 'e'));
  EXPECT_FALSE(d.tail);
}

TEST(OutputDrain, WithATailStderrsLastBytesAreKeptAndStdoutIsUnchanged) {
  std::string err;
  for (int i = 0; i < 40000; ++i) err += std::to_string(i) + "\n";
  const std::string out(20000, 'o');
  const drained d = drain(1 << 20, out, err, 65536);
  ASSERT_TRUE(d.tail);
  EXPECT_EQ(d.tail->bytes(), err.substr(err.size() - 65536));
  EXPECT_EQ(d.tail->seen(), err.size());
  EXPECT_EQ(d.out, out);
  EXPECT_FALSE(d.exceeded);
}

TEST(OutputDrain, TheTailKeepsNothingThatArrivedPastTheCap) {
  const drained d = drain(5000, "", std::string(4096, 'a') + std::string(4096, 'b'), 65536);
  EXPECT_TRUE(d.exceeded);
  ASSERT_TRUE(d.tail);
  EXPECT_LE(d.tail->seen(), 5000u);
  EXPECT_EQ(d.tail->bytes().find('b'), std::string::npos) << "a byte past the cap was kept";
  EXPECT_EQ(d.child_status, 0);
}

}  // namespace
}  // namespace plb::runner
