// SPDX-License-Identifier: Apache-2.0
// The files opened after the request (no_symlinks.hpp), on real files in a temporary directory,
// through both resolvers (the kernel's openat2 and the component walk): a link at the file or on
// any directory above it is refused before anything is read through it, a FIFO never blocks, and a
// file larger than its bound is refused by its size (a 1 GiB sparse file, never read).
#include "support/no_symlinks.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "../temp_dir.hpp"
#include "plb/sandbox/digest.hpp"

namespace plb {
namespace {

class NoSymlinks : public test::temp_dir_test, public ::testing::WithParamInterface<symlink_resolver> {
 protected:
  NoSymlinks() : temp_dir_test("plb-no-symlinks") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(::mkdir((dir_ + "/sub").c_str(), 0700), 0);
    file_ = dir_ + "/sub/model.py";
    std::ofstream(file_, std::ios::binary) << "print(1)\n";
  }
  result<regular_file> open(const std::string& path, std::size_t max = 1024) const {
    return open_bounded_file(path, max, GetParam());
  }
  static void expect_link_refused(const result<regular_file>& r, const std::string& path) {
    ASSERT_FALSE(r) << path << " was opened";
    EXPECT_EQ(r.error().errno_value, ELOOP) << path << ": " << r.error().what;
    EXPECT_EQ(r.error().what, no_symlink_words);
  }
  std::string file_;
};

TEST_P(NoSymlinks, ARegularFileOpensWithItsSize) {
  for (const std::string& path : {file_, dir_ + "//sub/./model.py", dir_ + "/sub/../sub/model.py"}) {
    const auto f = open(path);
    ASSERT_TRUE(f) << path << ": " << f.error().what;
    EXPECT_EQ(f->size, 9u);
    EXPECT_EQ(read_up_to(f->fd.get(), 1024).value(), "print(1)\n");
  }
  // Relative to the working directory, as an operator's paths often are.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const auto relative = open("sub/model.py");
  std::filesystem::current_path(cwd);
  EXPECT_TRUE(relative) << relative.error().what;
}

TEST_P(NoSymlinks, ALinkAtTheFileOrAboveItIsRefused) {
  // The attacks of issue 41: the recorded model swapped for a link to a root-only file, a data path
  // reaching /proc/self (itself a link), and a directory on the path swapped for a link.
  ASSERT_EQ(::symlink("/etc/shadow", (dir_ + "/shadow.py").c_str()), 0);
  ASSERT_EQ(::symlink(file_.c_str(), (dir_ + "/same.py").c_str()), 0);
  ASSERT_EQ(::symlink((dir_ + "/sub").c_str(), (dir_ + "/linked").c_str()), 0);
  ASSERT_EQ(::symlink("sub", (dir_ + "/relative").c_str()), 0);
  for (const std::string& path : {dir_ + "/shadow.py", dir_ + "/same.py", dir_ + "/linked/model.py",
                                  dir_ + "/relative/model.py", std::string("/proc/self/environ")})
    expect_link_refused(open(path), path);
  // A dangling link is a link too, not an absent file.
  ASSERT_EQ(::symlink((dir_ + "/nowhere").c_str(), (dir_ + "/dangling").c_str()), 0);
  expect_link_refused(open(dir_ + "/dangling"), "dangling");
}

TEST_P(NoSymlinks, OnlyARegularFileIsOpenedAndAFifoNeverBlocks) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  for (const std::string& path : {dir_ + "/fifo", dir_ + "/sub", std::string("/dev/null")}) {
    const auto f = open(path);
    ASSERT_FALSE(f) << path;
    EXPECT_EQ(f.error().what, "not a regular file") << path;
  }
  const auto absent = open(dir_ + "/absent");
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().errno_value, ENOENT);
  const auto through_a_file = open(file_ + "/x");
  ASSERT_FALSE(through_a_file);
  EXPECT_EQ(through_a_file.error().errno_value, ENOTDIR);
  EXPECT_FALSE(open(""));
}

TEST_P(NoSymlinks, AFileLargerThanItsBoundIsRefusedUnread) {
  // 1 GiB, sparse: refused by its size, so the test's address space (capped below) is never
  // asked for it.
  const std::string big = dir_ + "/big.csv";
  const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, off_t{1} << 30), 0);
  ::close(fd);
  const auto f = open(big, std::size_t{8} << 20);
  ASSERT_FALSE(f);
  EXPECT_TRUE(is_too_large(f.error()));
  EXPECT_EQ(f.error().what, "1073741824 bytes, more than the 8388608 it may have");
  // At the bound it opens; one byte over it does not.
  EXPECT_TRUE(open(file_, 9));
  EXPECT_TRUE(is_too_large(open(file_, 8).error()));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, NoSymlinks, ::testing::Values(symlink_resolver::best, symlink_resolver::walk),
                         [](const auto& p) { return p.param == symlink_resolver::best ? "openat2" : "walk"; });

class BoundedReads : public test::temp_dir_test {
 protected:
  BoundedReads() : temp_dir_test("plb-bounded-reads") {}
};

TEST_F(BoundedReads, ReadAndDigestStopAtTheBound) {
  const std::string path = dir_ + "/data.csv";
  std::ofstream(path, std::ios::binary) << "a,b\n1,2\n";
  EXPECT_EQ(read_bounded_file(path, 8).value(), "a,b\n1,2\n");
  EXPECT_EQ(digest_bounded_file(path, 8).value(), sandbox::sha256_of(std::string("a,b\n1,2\n")).digest.hex());
  EXPECT_TRUE(is_too_large(read_bounded_file(path, 7).error()));
  EXPECT_TRUE(is_too_large(digest_bounded_file(path, 7).error()));
  ASSERT_EQ(::symlink(path.c_str(), (dir_ + "/link.csv").c_str()), 0);
  EXPECT_EQ(read_bounded_file(dir_ + "/link.csv", 8).error().errno_value, ELOOP);
  EXPECT_EQ(digest_bounded_file(dir_ + "/link.csv", 8).error().errno_value, ELOOP);
}

}  // namespace
}  // namespace plb
