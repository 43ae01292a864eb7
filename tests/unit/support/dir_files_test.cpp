// SPDX-License-Identifier: Apache-2.0
// Files reached through a directory's descriptor (dir_files.hpp), on a real temporary directory:
// only a regular file of the given owner is ever opened; everything else is described (a symlink,
// a FIFO, a socket, another user's file); a replacement is all or nothing and leaves no temporary.

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "../temp_dir.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/unix_address.hpp"

namespace plb {
namespace {

namespace fs = std::filesystem;

constexpr const char* abc_sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

class DirFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::make_temp_dir("plb-dir-files-test");
    ASSERT_FALSE(dir_.empty());
    fd_.reset(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(fd_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& contents) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << contents;
  }
  std::string contents(const std::string& name) {
    std::ifstream in(dir_ + "/" + name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  std::set<std::string> names() {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.insert(e.path().filename().string());
    return out;
  }

  std::string dir_;
  unique_fd fd_;
  const uid_t me_ = ::geteuid();
};

TEST_F(DirFiles, ProbeTellsWhatANameIsWithoutFollowingIt) {
  write("own", "x");
  ASSERT_EQ(::symlink("own", (dir_ + "/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  ASSERT_EQ(::mkdir((dir_ + "/sub").c_str(), 0700), 0);
  const auto address = unix_address(dir_ + "/sock");
  ASSERT_TRUE(address);
  const unique_fd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_EQ(::bind(sock.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address), 0);

  EXPECT_EQ(probe_entry(fd_.get(), "absent", me_).kind, entry_kind::absent);
  EXPECT_EQ(probe_entry(fd_.get(), "own", me_).kind, entry_kind::own_file);
  for (const auto& [name, what] : {std::pair{"link", "a symbolic link"}, std::pair{"fifo", "a FIFO"},
                                   std::pair{"sub", "a directory"}, std::pair{"sock", "a socket"}}) {
    const dir_entry e = probe_entry(fd_.get(), name, me_);
    EXPECT_EQ(e.kind, entry_kind::other) << name;
    EXPECT_EQ(e.what, what) << name;
  }
  const dir_entry theirs = probe_entry(fd_.get(), "own", me_ + 1);
  EXPECT_EQ(theirs.kind, entry_kind::other);
  EXPECT_EQ(theirs.what, "owned by uid " + std::to_string(me_) + ", not this user's");
}

TEST_F(DirFiles, OnlyAnOwnRegularFileIsOpened) {
  write("own", "abc");
  ASSERT_EQ(::symlink("own", (dir_ + "/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);  // no writer: an open would block

  const auto own = open_own_file(fd_.get(), "own", me_);
  ASSERT_TRUE(own) << own.error().what;
  char buf[8] = {};
  EXPECT_EQ(::read(own->get(), buf, sizeof buf), 3);
  EXPECT_EQ(std::string(buf), "abc");

  const auto link = open_own_file(fd_.get(), "link", me_);
  ASSERT_FALSE(link);
  EXPECT_EQ(link.error().what, "a symbolic link") << "the link itself is refused, not followed";
  const auto fifo = open_own_file(fd_.get(), "fifo", me_);
  ASSERT_FALSE(fifo);
  EXPECT_EQ(fifo.error().what, "a FIFO");
  const auto theirs = open_own_file(fd_.get(), "own", me_ + 1);
  ASSERT_FALSE(theirs);
  EXPECT_NE(theirs.error().what.find("owned by uid"), std::string::npos);
  const auto absent = open_own_file(fd_.get(), "absent", me_);
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().errno_value, ENOENT);
}

TEST_F(DirFiles, ReadOwnFileIsBoundedToTheByte) {
  write("own", "0123456789");
  const auto all = read_own_file(fd_.get(), "own", me_, 10);
  ASSERT_TRUE(all) << all.error().what;
  EXPECT_EQ(*all, "0123456789");
  const auto over = read_own_file(fd_.get(), "own", me_, 9);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().what, "larger than 9 bytes");
  ASSERT_EQ(::symlink("own", (dir_ + "/link").c_str()), 0);
  EXPECT_FALSE(read_own_file(fd_.get(), "link", me_, 100));
}

TEST_F(DirFiles, DigestOwnFileIsTheSha256OfItsBytes) {
  write("own", "abc");
  const auto d = digest_own_file(fd_.get(), "own", me_);
  ASSERT_TRUE(d) << d.error().what;
  EXPECT_EQ(*d, abc_sha256);
  ASSERT_EQ(::symlink("own", (dir_ + "/link").c_str()), 0);
  const auto link = digest_own_file(fd_.get(), "link", me_);
  ASSERT_FALSE(link);
  EXPECT_EQ(link.error().what, "a symbolic link");
}

TEST_F(DirFiles, ReplaceFileAtWritesAPrivateFileAndLeavesNoTemporary) {
  write("summary.csv", "old contents that are longer");
  ::chmod((dir_ + "/summary.csv").c_str(), 0644);
  replace_file_at(fd_.get(), dir_, "summary.csv", "new");
  EXPECT_EQ(contents("summary.csv"), "new");
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/summary.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(names(), std::set<std::string>{"summary.csv"});
}

TEST_F(DirFiles, AReplacementWrittenInPiecesIsWholeOnlyAtCommit) {
  write("big", "old");
  std::string expected;
  {
    file_replacement out(fd_.get(), dir_, "big");
    for (int i = 0; i < 5000; ++i) {
      const std::string piece = "line " + std::to_string(i) + "\n";
      out.append(piece);
      expected += piece;
    }
    out.append(std::string(200000, 'z'));  // one piece past the 64 KiB buffer: written directly
    expected += std::string(200000, 'z');
    out.append("end\n");
    expected += "end\n";
    EXPECT_EQ(contents("big"), "old") << "until commit the name keeps what it had";
    out.commit();
    EXPECT_THROW(out.append("more"), failure) << "nothing is written after the commit";
  }
  EXPECT_EQ(contents("big"), expected);
  EXPECT_EQ(names(), std::set<std::string>{"big"});
}

TEST_F(DirFiles, AReplacementNeverCommittedChangesNothing) {
  write("kept", "old");
  {
    file_replacement out(fd_.get(), dir_, "kept");
    out.append(std::string(100000, 'n'));
  }
  EXPECT_EQ(contents("kept"), "old");
  EXPECT_EQ(names(), std::set<std::string>{"kept"}) << "the temporary is removed";
}

TEST_F(DirFiles, AReplacementThatCannotBeCreatedIsAnInternalError) {
  try {
    file_replacement out(-1, "/nowhere", "x");
    FAIL() << "no failure";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::internal_error);
    EXPECT_NE(std::string(f.what()).find("/nowhere"), std::string::npos) << f.what();
  }
}

TEST_F(DirFiles, APrivateSubdirIsCreated0700AndASymlinkIsRefused) {
  {
    const result<unique_fd> sub = open_private_subdir(fd_.get(), dir_, "records");
    ASSERT_TRUE(sub);
    struct stat st {};
    ASSERT_EQ(::fstat(sub->get(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
  }
  EXPECT_TRUE(open_private_subdir(fd_.get(), dir_, "records")) << "an existing one is opened again";

  ASSERT_EQ(::symlink("records", (dir_ + "/link").c_str()), 0);
  const result<unique_fd> link = open_private_subdir(fd_.get(), dir_, "link");
  ASSERT_FALSE(link) << "a symlink was followed";
  EXPECT_NE(link.error().what.find(dir_ + "/link"), std::string::npos) << link.error().what;
}

}  // namespace
}  // namespace plb
