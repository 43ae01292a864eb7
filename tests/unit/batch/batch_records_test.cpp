// SPDX-License-Identifier: Apache-2.0
// Each line's record (batch_records) and the host key that seals it, on real files in a scratch
// directory: only records the key verifies, of fields the tool writes; a key that is root's and secret.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "batch/batch_records.hpp"
#include "batch_fixture.hpp"
#include "runner/for_batch.hpp"
#include "support/file_io.hpp"

namespace plb::batch {
namespace {

namespace fs = std::filesystem;

TEST_F(BatchTrust, OnlyARecordTheKeyVerifiesIsTrusted) {
  const batch_item item = plan(line("a")).item(0);
  const host_key k = key();
  const std::string text = signed_record(item, k);
  const auto good = parse_record(text, "a", k);
  ASSERT_TRUE(good) << good.error().what;
  EXPECT_EQ(good->outcome.state, "script_failed");
  EXPECT_EQ(good->outcome.usage->memory_peak_bytes, 4096u);
  // Any one byte changed anywhere, the MAC included, and the record is refused.
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(parse_record(bad, "a", k)) << "byte " << i << " of " << text;
  }
  EXPECT_FALSE(parse_record(text + " ", "a", k)) << "a byte appended";
  EXPECT_FALSE(parse_record(text, "b", k)) << "another line's record";
  ASSERT_EQ(::mkdir((dir_ + "/.other").c_str(), 0700), 0);
  const auto other = parse_record(text, "a", key(".other"));
  ASSERT_FALSE(other) << "another key";
  EXPECT_NE(other.error().what.find("MAC does not verify"), std::string::npos) << other.error().what;
  // Signed, but with a field this tool never writes: refused all the same.
  const std::string body = text.substr(0, text.rfind(",\"mac\""));
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string b = body;
    b.replace(b.find(from), from.size(), to);
    return parse_record(seal_record(b, k), "a", k).has_value();
  };
  EXPECT_FALSE(with(R"("exit_code":8)", R"("exit_code":256)"));
  EXPECT_FALSE(with(R"("exit_code":8)", R"("exit_code":-1)"));
  EXPECT_FALSE(with(R"("verdict":"script_failed")", R"("verdict":"pwned")"));
  EXPECT_FALSE(with(R"("message":"the)", R"("message":"\u001b[2J)"));
  EXPECT_FALSE(with(R"("verdict":"script_failed")", R"("verdict":"success")")) << "a success without its digests";
  EXPECT_FALSE(with(R"("predictions_sha256":null)", R"("predictions_sha256":")" + std::string(64, 'A') + "\""));
  EXPECT_FALSE(with(R"("wall_seconds":1.5)", R"("wall_seconds":-1.5)"));
  EXPECT_TRUE(with(R"("exit_code":8)", R"("exit_code":9)")) << "the control case";
  // A record of the first version, which had no MAC: never trusted, and the message says why.
  const auto old = parse_record(R"({"schema":"plb-sandbox/batch-record/1","id":"a","verdict":"success"})", "a", k);
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().what.find("older plb-sandbox, without a MAC"), std::string::npos) << old.error().what;
}

TEST_F(BatchTrust, TheKeyIsMadeOnceRootOnlyAndRefusedWhenItIsNotSecret) {
  const std::string path = dir_ + "/.key/" + host_key_name;
  const host_key first = key();
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_size, 32);
  EXPECT_EQ(first.mac("x"), key().mac("x")) << "the second use reads the first one's key";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  EXPECT_EQ(first.mac("x"), key().mac("x")) << "0600 is accepted";
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("has mode 0644"), std::string::npos);
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);
  ASSERT_EQ(::chown(path.c_str(), nobody, nobody), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("owned by uid 65534, not root"), std::string::npos);
  fs::remove(path);
  fs::create_symlink(dir_ + "/in.csv", path);
  EXPECT_NE(refusal([&] { (void)key(); }).find("not a regular file"), std::string::npos);
  fs::remove(path);
  write(".key/batch.key", "short");
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("5 bytes, not 32"), std::string::npos);
  fs::remove(path);
  EXPECT_NE(first.mac("x"), key().mac("x")) << "a removed key is made anew, from fresh random bytes";
}

// verify only checks what a key sealed: on a host without one it refuses and makes none, so a
// node not yet given the shared key cannot go on to seal its runs under a stray one.
TEST_F(BatchTrust, AReaderThatOnlyChecksNeverMakesAKey) {
  const std::string path = dir_ + "/.key/" + host_key_name;
  const unique_fd fd(::open((dir_ + "/.key").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  const std::string why = refusal([&] { (void)load_host_key(fd.get(), dir_ + "/.key", runner::key_absent::refuse); });
  EXPECT_NE(why.find("does not exist: this host has sealed nothing"), std::string::npos) << why;
  EXPECT_NE(why.find("install that host's key file"), std::string::npos) << why;
  struct stat st {};
  EXPECT_NE(::lstat(path.c_str(), &st), 0) << "no key was made";
  const host_key made = key();  // a scoring run makes it
  const host_key read = load_host_key(fd.get(), dir_ + "/.key", runner::key_absent::refuse);
  EXPECT_EQ(made.mac("x"), read.mac("x")) << "an existing key is read as before";
}

}  // namespace
}  // namespace plb::batch
