// SPDX-License-Identifier: Apache-2.0
// The one rule for the directories the tool creates (private_dir.hpp), on a real temporary
// directory: batch's open_private_dir creates one level 0700 and trusts only a private real
// directory; check_creatable_dir allows a new directory only in a parent of this user's that no one
// else can write, never through a symlink, never as a chain; and a refusal creates nothing.

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../temp_dir.hpp"
#include "support/private_dir.hpp"

namespace plb {
namespace {

namespace fs = std::filesystem;

class PrivateDir : public test::temp_dir_test {
 protected:
  PrivateDir() : temp_dir_test("plb-private-dir-test") {}

  std::string made(const std::string& name, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    EXPECT_EQ(::mkdir(path.c_str(), 0700), 0) << path;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0) << path;  // past the umask
    return path;
  }
  static mode_t mode_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  // The refusal's words, or "" (with a test failure) when it was not refused.
  static std::string refusal(const result<void>& r) {
    EXPECT_FALSE(r) << "allowed";
    return r ? std::string() : r.error().what;
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(PrivateDir, AMissingDirectoryInAPrivateParentIsCreated0700) {
  const std::string out = dir_ + "/outputs";
  EXPECT_TRUE(check_creatable_dir(out)) << "the fixture's directory is mkdtemp's: 0700, this user's";
  EXPECT_FALSE(fs::exists(out)) << "a check creates nothing";
  const result<unique_fd> fd = create_private_dir(out);
  ASSERT_TRUE(fd) << fd.error().what;
  EXPECT_TRUE(fs::is_directory(out));
  EXPECT_EQ(mode_of(out), 0700u);
  EXPECT_TRUE(create_private_dir(out)) << "one made meanwhile (another run of this user's) is used";
}

TEST_F(PrivateDir, AParentWritableByOthersIsRefusedAndNothingIsCreated) {
  for (const mode_t mode : {mode_t{0777}, mode_t{0770}, mode_t{01777}, mode_t{0720}}) {
    const std::string parent = made("shared-" + std::to_string(mode), mode);
    const std::string out = parent + "/outputs";
    const std::string why = refusal(check_creatable_dir(out));
    EXPECT_TRUE(has(why, "its parent " + parent + " is writable by group or others")) << why;
    EXPECT_TRUE(has(why, "create " + out + " yourself")) << "the fix: " << why;
    EXPECT_FALSE(create_private_dir(out));
    EXPECT_FALSE(fs::exists(out)) << "created under a parent others can write, mode " << mode;
  }
}

TEST_F(PrivateDir, AParentOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "chown needs root";
  const std::string parent = made("theirs", 0755);
  ASSERT_EQ(::chown(parent.c_str(), 1000, 1000), 0);
  const std::string why = refusal(check_creatable_dir(parent + "/outputs"));
  EXPECT_TRUE(has(why, "is owned by uid 1000, not by this user (uid 0)")) << why;
  EXPECT_FALSE(fs::exists(parent + "/outputs"));
}

TEST_F(PrivateDir, ASymlinkedParentIsRefusedThoughItLeadsToAPrivateDirectory) {
  const std::string real = made("real", 0700);
  const std::string link = dir_ + "/link";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  const std::string why = refusal(check_creatable_dir(link + "/outputs"));
  EXPECT_TRUE(has(why, "its parent " + link + " is a symbolic link")) << why;
  EXPECT_FALSE(create_private_dir(link + "/outputs"));
  EXPECT_FALSE(fs::exists(real + "/outputs")) << "created through the symlink";
}

TEST_F(PrivateDir, AChainOfMissingDirectoriesIsRefusedNotBuilt) {
  const std::string out = dir_ + "/a/b";
  const std::string why = refusal(check_creatable_dir(out));
  EXPECT_TRUE(has(why, "nor does its parent " + dir_ + "/a")) << why;
  EXPECT_TRUE(has(why, "create " + dir_ + "/a first")) << "the fix: " << why;
  EXPECT_FALSE(create_private_dir(out));
  EXPECT_FALSE(fs::exists(dir_ + "/a")) << "a chain was started";
}

TEST_F(PrivateDir, WhatIsAlreadyThereIsNotCreatable) {
  ASSERT_EQ(::symlink("nowhere", (dir_ + "/dangling").c_str()), 0);
  EXPECT_TRUE(has(refusal(check_creatable_dir(dir_ + "/dangling")), "a symbolic link"));
  EXPECT_FALSE(create_private_dir(dir_ + "/dangling"));
  EXPECT_TRUE(has(refusal(check_creatable_dir(made("there", 0700))), "already exists"));
}

TEST_F(PrivateDir, BatchsRuleTrustsOnlyAPrivateRealDirectory) {
  const result<unique_fd> fresh = open_private_dir(dir_ + "/round");
  ASSERT_TRUE(fresh) << fresh.error().what;
  EXPECT_EQ(mode_of(dir_ + "/round"), 0700u);
  EXPECT_TRUE(open_private_dir(dir_ + "/round")) << "an existing private one is opened again";

  const std::string open_dir = made("open", 0777);
  const result<unique_fd> shared = open_private_dir(open_dir);
  ASSERT_FALSE(shared);
  EXPECT_EQ(shared.error().what,
            "writable by group or others (mode 0777): anyone who can write there could plant "
            "results; use a new directory (plb-sandbox creates it 0700), or check its files "
            "and chmod go-w " +
                open_dir);
  ASSERT_EQ(::symlink("round", (dir_ + "/link").c_str()), 0);
  const result<unique_fd> link = open_private_dir(dir_ + "/link");
  ASSERT_FALSE(link);
  EXPECT_EQ(link.error().what, "not a directory (symlinks are refused)");
  const result<unique_fd> chain = open_private_dir(dir_ + "/x/y");
  ASSERT_FALSE(chain);
  EXPECT_EQ(chain.error().what, "No such file or directory");
}

TEST(DirectoryOf, IsTheDirectoryPartOfAPath) {
  EXPECT_EQ(directory_of("outputs/p.csv"), "outputs");
  EXPECT_EQ(directory_of("p.csv"), ".");
  EXPECT_EQ(directory_of("/p.csv"), "/");
  EXPECT_EQ(directory_of("/srv/eval/round-7"), "/srv/eval");
}

}  // namespace
}  // namespace plb
