// SPDX-License-Identifier: Apache-2.0
// The tool's file helpers (file_io.hpp) on real files in a temporary directory: a descriptor owned
// once; an operator-named path opened only when it is a regular file (a FIFO never blocks the
// open, a directory or device is refused); reads bounded to the byte; writes complete or errno.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "../temp_dir.hpp"
#include "support/file_io.hpp"

namespace plb {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

class FileIo : public test::temp_dir_test {
 protected:
  FileIo() : temp_dir_test("plb-file-io-test") {}

  std::string write(const std::string& name, const std::string& contents) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }
};

TEST(UniqueFd, ClosesWhatItOwnsOnceAndHandsItOverOnMove) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  {
    unique_fd read_end(fds[0]);
    unique_fd moved(std::move(read_end));
    EXPECT_FALSE(read_end);
    EXPECT_EQ(moved.get(), fds[0]);
    EXPECT_TRUE(is_open(fds[0])) << "a move does not close";
  }
  EXPECT_FALSE(is_open(fds[0])) << "the last owner closed it";

  unique_fd write_end(fds[1]);
  const int released = write_end.release();
  EXPECT_EQ(released, fds[1]);
  EXPECT_FALSE(write_end);
  write_end.reset();
  EXPECT_TRUE(is_open(released)) << "a released descriptor is the caller's";
  write_end.reset(released);
  write_end.reset();
  EXPECT_FALSE(is_open(released));
}

TEST_F(FileIo, OpensARegularFileAndKnowsItsSize) {
  const auto f = open_regular_file(write("data.csv", "a,b\n1,2\n"));
  ASSERT_TRUE(f) << f.error().what;
  EXPECT_EQ(f->size, 8u);
  char buf[16] = {};
  EXPECT_EQ(::read(f->fd.get(), buf, sizeof buf), 8);
  EXPECT_EQ(std::string(buf), "a,b\n1,2\n");
  EXPECT_NE(::fcntl(f->fd.get(), F_GETFD) & FD_CLOEXEC, 0) << "no descriptor leaks into a child";
}

TEST_F(FileIo, RefusesWhatIsNotARegularFileWithoutOpeningIt) {
  // A FIFO with no writer: a plain open for reading would block here forever.
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, dir_, std::string("/dev/null")}) {
    const auto f = open_regular_file(path);
    ASSERT_FALSE(f) << path;
    EXPECT_EQ(f.error().what, "not a regular file") << path;
    EXPECT_EQ(f.error().errno_value, 0) << path;
  }
}

TEST_F(FileIo, AMissingFileIsTheSystemsReason) {
  const auto f = open_regular_file(dir_ + "/absent");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().errno_value, ENOENT);
  EXPECT_EQ(f.error().what, std::strerror(ENOENT));
}

TEST_F(FileIo, ReadsUpToTheLimitAndNotOneByteMore) {
  const std::string big(200000, 'x');  // past the first 64 KiB buffer: it grows as the file does
  const auto f = open_regular_file(write("big", big));
  ASSERT_TRUE(f);
  const result<std::string> all = read_up_to(f->fd.get(), big.size());
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, big) << "exactly at the limit is allowed";

  const auto g = open_regular_file(write("big", big));
  ASSERT_TRUE(g);
  const result<std::string> over = read_up_to(g->fd.get(), big.size() - 1);
  ASSERT_FALSE(over) << "one byte past the limit is refused, and a refused read hands back nothing";
  EXPECT_TRUE(is_too_large(over.error()));
  EXPECT_EQ(over.error().errno_value, EFBIG);

  const auto e = open_regular_file(write("empty", ""));
  ASSERT_TRUE(e);
  const result<std::string> none = read_up_to(e->fd.get(), 0);
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "");
}

TEST_F(FileIo, AReadErrorIsTheSystemsReason) {
  const unique_fd d(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(d);
  const result<std::string> r = read_up_to(d.get(), 100);
  ASSERT_FALSE(r);
  EXPECT_FALSE(is_too_large(r.error())) << "the system's reason, not the size";
  EXPECT_EQ(r.error().errno_value, EISDIR);
}

TEST_F(FileIo, WriteAllWritesEveryByte) {
  const std::string path = dir_ + "/out";
  const unique_fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  ASSERT_TRUE(fd);
  std::string data(3 << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(write_all(fd.get(), data));
  const auto back = open_regular_file(path);
  ASSERT_TRUE(back);
  const result<std::string> read_back = read_up_to(back->fd.get(), data.size());
  ASSERT_TRUE(read_back);
  EXPECT_EQ(*read_back, data);
}

TEST(WriteAll, AFailedWriteIsItsErrno) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const unique_fd write_end(fds[1]);
  ::close(fds[0]);
  // The test binary ignores SIGPIPE (tests/harness/test_main.cpp): the write fails with EPIPE.
  const auto r = write_all(write_end.get(), "nobody reads this");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errno_value, EPIPE);
  EXPECT_EQ(r.error().what, std::strerror(EPIPE));
}

}  // namespace
}  // namespace plb
