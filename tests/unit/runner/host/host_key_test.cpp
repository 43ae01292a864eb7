// SPDX-License-Identifier: Apache-2.0
// The host key in a temporary directory (never the host's): made once, 0400 and 32 bytes, the same
// key on every later load; a MAC that verifies only for its own bytes; and every unsafe key file
// (a symlink, another owner, a mode others may read, a wrong size) or an absent one where only a
// check is wanted refused with the fix.
#include "runner/host/host_key.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../../temp_dir.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

class HostKey : public test::temp_dir_test {
 protected:
  HostKey() : temp_dir_test("plb-host-key") {}
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the key is root's";
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    temp_dir_test::TearDown();
  }
  host_key load(key_absent absent = key_absent::make_it) const { return load_host_key(fd_, dir_, absent); }
  // The refusal a load gives, "" when it loads.
  std::string refusal(key_absent absent = key_absent::make_it) const {
    try {
      (void)load(absent);
      return "";
    } catch (const failure& f) {
      return (f.verdict() == sandbox::verdict::host_refused ? "" : "not host_refused: ") + std::string(f.what());
    }
  }
  std::string key_path() const { return dir_ + "/" + host_key_name; }
  int fd_ = -1;
};

TEST_F(HostKey, MadeOnceSecretAndTheSameOnEveryLoad) {
  EXPECT_NE(refusal(key_absent::refuse).find("does not exist"), std::string::npos) << "a check makes no key";
  const host_key first = load();
  struct stat st {};
  ASSERT_EQ(::stat(key_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0400);
  EXPECT_EQ(st.st_size, static_cast<off_t>(host_key_bytes));
  EXPECT_EQ(st.st_uid, 0u);
  const std::string mac = hex_of(first.mac("a record"));
  EXPECT_EQ(mac.size(), 64u);
  EXPECT_EQ(hex_of(load().mac("a record")), mac) << "loaded again, the same key";
  EXPECT_EQ(hex_of(load(key_absent::refuse).mac("a record")), mac);
}

TEST_F(HostKey, AMacVerifiesOnlyItsOwnBytesUnderItsOwnKey) {
  const host_key key = load();
  const std::string mac = hex_of(key.mac("a record"));
  EXPECT_TRUE(key.verifies("a record", mac));
  EXPECT_FALSE(key.verifies("a recorD", mac));
  std::string edited = mac;
  edited[10] = edited[10] == '0' ? '1' : '0';
  EXPECT_FALSE(key.verifies("a record", edited));
  EXPECT_FALSE(key.verifies("a record", mac.substr(1)));
  EXPECT_FALSE(host_key(host_key::bytes_type{1}).verifies("a record", mac)) << "another key";
}

TEST_F(HostKey, AnUnsafeKeyFileIsRefusedWithTheFix) {
  (void)load();
  ASSERT_EQ(::chmod(key_path().c_str(), 0644), 0);
  EXPECT_NE(refusal().find("has mode 0644 (0400 or 0600 only: it must stay secret): chmod 0400"), std::string::npos)
      << refusal();
  ASSERT_EQ(::chmod(key_path().c_str(), 0600), 0);
  EXPECT_EQ(refusal(), "") << "0600 is secret too";
  ASSERT_EQ(::chown(key_path().c_str(), 1000, 0), 0);
  EXPECT_NE(refusal().find("is owned by uid 1000, not root"), std::string::npos) << refusal();
  ASSERT_EQ(::unlink(key_path().c_str()), 0);
  std::ofstream(dir_ + "/short") << "0123456789";
  ASSERT_EQ(::chmod((dir_ + "/short").c_str(), 0400), 0);
  ASSERT_EQ(::symlink((dir_ + "/short").c_str(), key_path().c_str()), 0);
  EXPECT_NE(refusal().find("is not a regular file"), std::string::npos) << refusal();
  ASSERT_EQ(::rename((dir_ + "/short").c_str(), key_path().c_str()), 0);
  EXPECT_NE(refusal().find("bytes"), std::string::npos) << "a key of 10 bytes: " << refusal();
}

// Issue 41: verify as another user was told to "check the file system" for a plain EACCES. The
// refusal names the permission, the user and who may run it, whether the key or its directory is
// what that user cannot read. The load runs in a child that has given up root.
TEST_F(HostKey, AUserWhoMayNotReadTheKeyIsToldWhoMay) {
  (void)load();
  const auto refusal_as_nobody = [this] {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::string("pipe2 failed");
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(fds[0]);
      std::string words = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? refusal(key_absent::refuse) : "setuid failed";
      (void)!::write(fds[1], words.data(), words.size());
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string words;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) words.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    return words;
  };
  for (const mode_t dir_mode : {0755, 0700}) {
    ASSERT_EQ(::chmod(dir_.c_str(), dir_mode), 0);
    const std::string words = refusal_as_nobody();
    EXPECT_NE(words.find(": permission denied to uid 65534 (the key is root's, mode 0400): only root may seal or "
                         "check a seal: run plb-sandbox verify, batch and sandbox-score as root"),
              std::string::npos)
        << std::oct << dir_mode << ": " << words;
    EXPECT_EQ(words.find("file system"), std::string::npos) << words;
  }
}

}  // namespace
}  // namespace plb::runner
