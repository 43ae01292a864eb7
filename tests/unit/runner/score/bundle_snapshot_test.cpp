// SPDX-License-Identifier: Apache-2.0
// The bundle walk and snapshot on real files in a temporary directory: a good bundle's listing and
// its private copy (in a run directory under a private mount namespace), and every hostile bundle
// of issue 42 item 8, each refused with its own kind and its escaped path, before anything would
// run, leaving nothing behind. The races (a file growing while it is read, a directory swapped for
// a symbolic link mid-walk) are made exact with the test-only hold points: the walk runs in a
// forked child stopped at the stage, the test acts, then lets it go on.
#include "runner/score/bundle_snapshot.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>

#include "../../temp_dir.hpp"
#include "../state/private_state.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;
using kind = bundle_error::kind;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class BundleSnapshot : public test::temp_dir_test {
 protected:
  BundleSnapshot() : temp_dir_test("plb-bundle") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    bundle_ = dir_ + "/bundle";
    ASSERT_EQ(::mkdir(bundle_.c_str(), 0755), 0);
  }
  // Writes `text` at `rel` in the bundle, making its directories.
  std::string put(const std::string& rel, const std::string& text) const {
    const fs::path p = fs::path(bundle_) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  // The refusal of the bundle's walk: its kind and message; "accepted" when it was not refused.
  std::pair<kind, std::string> refusal(const sandbox::SandboxLimits& limits = {}) const {
    const auto r = digest_bundle(bundle_, limits);
    if (r) return {kind::system, "accepted"};
    return {r.error().what, r.error().message()};
  }
  std::string bundle_;
};

// ---- A good bundle ---------------------------------------------------------------------------

TEST_F(BundleSnapshot, TheListingNamesEveryRegularFileSortedWithItsDigestAndSize) {
  put("weights/layer 1.bin", std::string(3 << 20, '\x01'));  // more than one read buffer
  put("config.json", "{\"features\": [\"a\"]}\n");
  put("a-b", "");
  put("a/b", "x");
  fs::create_directories(bundle_ + "/empty/dir");
  const auto r = digest_bundle(bundle_, {}, true);
  ASSERT_TRUE(r) << r.error().message();
  const auto line = [](const std::string& content, const std::string& path) {
    return sandbox::sha256_of(content).digest.hex() + "  " + std::to_string(content.size()) + "  " + path + "\n";
  };
  const std::string listing = line("", "a-b") + line("x", "a/b") + line("{\"features\": [\"a\"]}\n", "config.json") +
                              line(std::string(3 << 20, '\x01'), "weights/layer 1.bin");
  EXPECT_EQ(r->text, listing);
  EXPECT_EQ(r->digest.hex(), sandbox::sha256_of(listing).digest.hex());
  EXPECT_EQ(r->files, 4u);
  EXPECT_EQ(r->bytes, (3u << 20) + std::string("{\"features\": [\"a\"]}\n").size() + 1);
}

TEST_F(BundleSnapshot, TheBundlesOwnPathIsADirectoryReachedThroughNoLink) {
  const std::string file = put("f", "x");
  EXPECT_EQ(digest_bundle(file, {}).error().what, kind::not_a_directory);
  EXPECT_EQ(digest_bundle(dir_ + "/absent", {}).error().what, kind::not_a_directory);
  ASSERT_EQ(::symlink(bundle_.c_str(), (dir_ + "/link").c_str()), 0);
  EXPECT_EQ(digest_bundle(dir_ + "/link", {}).error().what, kind::not_a_directory);
}

// The snapshot in a run directory: the copy holds exactly the listing's files, the sandbox user's
// and read-only; a wrong digest refuses naming both digests and the caller's field, and removes it.
TEST_F(BundleSnapshot, TheCopyIsTheSandboxUsersReadOnlyAndHeldToTheDigest) {
  if (::geteuid() != 0) GTEST_SKIP() << "the run directories are root's";
  put("w/model.bin", std::string(1 << 20, 'w') + "tail");
  put("config.json", "{}");
  fs::create_directories(bundle_ + "/empty");
  const auto reviewed = digest_bundle(bundle_, {});
  ASSERT_TRUE(reviewed);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(std::string(32, 'b'));
              const auto snap =
                  take_bundle_snapshot(bundle_, reviewed->digest, {}, dir, 65534, 65534, "--bundle", "--bundle-sha256");
              if (snap.path != dir.path() + "/bundle" || snap.files != 2 || snap.bytes != (1u << 20) + 6)
                return "snapshot " + snap.path + " of " + std::to_string(snap.files) + " files";
              if (snap.digest.hex() != reviewed->digest.hex()) return "another digest";
              if (fs::exists(snap.path + "/empty")) return "an empty directory copied";
              for (const auto& [rel, mode] :
                   {std::pair{"", 0500}, {"/w", 0500}, {"/w/model.bin", 0400}, {"/config.json", 0400}}) {
                struct stat st {};
                if (::lstat((snap.path + rel).c_str(), &st) != 0) return "missing: " + std::string(rel);
                if (st.st_uid != 65534 || st.st_gid != 65534 || (st.st_mode & 07777) != static_cast<mode_t>(mode))
                  return std::string(rel) + ": owner " + std::to_string(st.st_uid) + ", mode " +
                         std::to_string(st.st_mode & 07777);
              }
              if (read_all(snap.path + "/w/model.bin") != std::string(1 << 20, 'w') + "tail") return "other bytes";
              ::chmod(snap.path.c_str(), 0700);
              fs::remove_all(snap.path);
              try {
                take_bundle_snapshot(bundle_, sandbox::sha256_of("other").digest, {}, dir, 65534, 65534, "bundle",
                                     "bundle_sha256");
                return "a wrong digest accepted";
              } catch (const failure& f) {
                const std::string said = f.what();
                if (f.verdict() != sandbox::verdict::input_refused) return "not input_refused: " + said;
                if (said.find("bundle " + bundle_ + " has SHA-256 " + reviewed->digest.hex()) != 0 ||
                    said.find("given by bundle_sha256") == std::string::npos)
                  return "said: " + said;
              }
              if (fs::exists(dir.path() + "/bundle")) return std::string("the refused copy was left behind");
              return "";
            }),
            "");
}

// ---- Hostile bundles (issue 42 item 8): each refused by its own check, naming its path ------

TEST_F(BundleSnapshot, ASymlinkToShadowIsRefusedNeverFollowed) {
  put("model.pt", "w");
  ASSERT_EQ(::symlink("/etc/shadow", (bundle_ + "/weights.pt").c_str()), 0);
  const auto [k, said] = refusal();
  EXPECT_EQ(k, kind::not_regular) << said;
  EXPECT_EQ(said, "weights.pt: a symbolic link, refused: a bundle holds only regular files and directories");
}

TEST_F(BundleSnapshot, AHardLinkToARootOnlyFileIsRefused) {
  const std::string secret = dir_ + "/root-only";
  std::ofstream(secret) << "secret";
  ASSERT_EQ(::chmod(secret.c_str(), 0400), 0);
  fs::create_directories(bundle_ + "/d");
  ASSERT_EQ(::link(secret.c_str(), (bundle_ + "/d/stolen").c_str()), 0);
  const auto [k, said] = refusal();
  EXPECT_EQ(k, kind::hard_link) << said;
  EXPECT_EQ(said, "d/stolen: a hard link (2 links), refused: a bundle's files have no other names");
}

// The walk never opens a FIFO: in a child with an alarm, so a walk that blocked would die, not hang.
TEST_F(BundleSnapshot, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((bundle_ + "/pipe").c_str(), 0644), 0);
  test::forked_child child([&] {
    ::alarm(10);
    const auto r = digest_bundle(bundle_, {});
    ::_exit(!r && r.error().what == kind::not_regular && r.error().message().rfind("pipe: a FIFO", 0) == 0 ? 0 : 1);
  });
  const int status = child.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << " (SIGALRM: it blocked)";
}

TEST_F(BundleSnapshot, ADeviceNodeIsRefusedUnopened) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a device needs root";
  ASSERT_EQ(::mknod((bundle_ + "/zero").c_str(), S_IFCHR | 0644, makedev(1, 5)), 0);
  const auto [k, said] = refusal();
  EXPECT_EQ(k, kind::not_regular) << said;
  EXPECT_EQ(said.rfind("zero: a character device", 0), 0u) << said;
}

TEST_F(BundleSnapshot, ASocketIsRefused) {
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = bundle_ + "/sock";
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  path.copy(addr.sun_path, path.size());
  const int bound = ::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  ::close(s);
  ASSERT_EQ(bound, 0);
  const auto [k, said] = refusal();
  EXPECT_EQ(k, kind::not_regular) << said;
  EXPECT_EQ(said.rfind("sock: a socket", 0), 0u) << said;
}

TEST_F(BundleSnapshot, OneEntryOverTheCountIsRefused) {
  sandbox::SandboxLimits l;
  l.bundle_files = 4;
  for (const char* f : {"a", "b", "c", "d"}) put(f, f);
  EXPECT_EQ(refusal(l).second, "accepted") << "exactly the bound";
  put("e", "e");
  const auto [k, said] = refusal(l);
  EXPECT_EQ(k, kind::too_many) << said;
  EXPECT_NE(said.find("more than the 4 entries"), std::string::npos) << said;
  // Directories count too: a bundle of empty directories is bounded as well.
  fs::remove(bundle_ + "/e");
  fs::create_directories(bundle_ + "/z");
  EXPECT_EQ(refusal(l).first, kind::too_many);
}

TEST_F(BundleSnapshot, OneDirectoryOverTheDepthIsRefused) {
  sandbox::SandboxLimits l;
  l.bundle_depth = 3;
  put("a/b/c", "at the bound");
  EXPECT_EQ(refusal(l).second, "accepted");
  fs::create_directories(bundle_ + "/a/b/d/e");  // d is the third level, e the fourth
  const auto [k, said] = refusal(l);
  EXPECT_EQ(k, kind::too_deep) << said;
  EXPECT_EQ(said.rfind("a/b/d/e: deeper than the 3 levels", 0), 0u) << said;
}

TEST_F(BundleSnapshot, APathOverItsLengthIsRefused) {
  sandbox::SandboxLimits l;
  l.bundle_path_bytes = 16;
  put(std::string(16, 'p'), "");
  EXPECT_EQ(refusal(l).second, "accepted");
  put("dir/" + std::string(13, 'q'), "");
  EXPECT_EQ(refusal(l).first, kind::too_long) << refusal(l).second;
}

// Charged by its size before a byte is read: a terabyte is refused at once.
TEST_F(BundleSnapshot, ASparseFileClaimingATerabyteIsRefusedUnread) {
  const std::string big = put("huge.bin", "");
  ASSERT_EQ(::truncate(big.c_str(), std::int64_t{1} << 40), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto [k, said] = refusal();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(k, kind::too_large) << said;
  EXPECT_EQ(said.rfind("huge.bin: 1099511627776 bytes, past the 2048 MiB", 0), 0u) << said;
  // The bound is on the total: two files of 600 KiB pass 1 MiB together.
  fs::remove(big);
  put("a", std::string(600 << 10, 'a'));
  put("b", std::string(600 << 10, 'b'));
  sandbox::SandboxLimits l;
  l.bundle_mib = 1;
  EXPECT_EQ(refusal(l).first, kind::too_large);
}

TEST_F(BundleSnapshot, NamesWithANewlineOrNotUtf8AreRefusedAndShownEscaped) {
  put("ok/line\nbreak.pt", "x");
  auto [k, said] = refusal();
  EXPECT_EQ(k, kind::bad_name) << said;
  EXPECT_EQ(said.rfind("ok/line\\x0abreak.pt: a name that is not printable UTF-8", 0), 0u) << said;
  fs::remove_all(bundle_ + "/ok");
  put("latin1-\xe9t\xe9.bin", "x");
  std::tie(k, said) = refusal();
  EXPECT_EQ(k, kind::bad_name) << said;
  EXPECT_EQ(said.rfind("latin1-\\xe9t\\xe9.bin: ", 0), 0u) << said;
  EXPECT_NE(said.find("at byte 7"), std::string::npos) << said;
}

// ---- The races, made exact with the hold points ---------------------------------------------

#ifdef PLB_SANDBOX_TEST_HOLDS
constexpr bool holds_built = true;
#else
constexpr bool holds_built = false;
#endif

// The walk of `bundle` in a child held at `stage`: `act` runs while it is stopped there (the first
// time), then the child goes on. Its refusal's message, "accepted", or what went wrong; a child
// that stops a second time is killed and reported as such.
std::string walk_held(const std::string& bundle, const char* stage, const std::function<void()>& act) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return "no pipe";
  test::forked_child child([&] {
    ::close(report[0]);
    ::setenv("PLB_SANDBOX_TEST_STOP_AT", stage, 1);
    const auto r = digest_bundle(bundle, {});
    const std::string said = r ? "accepted" : r.error().message();
    (void)!::write(report[1], said.data(), said.size());
  });
  ::close(report[1]);
  const auto wait_stopped_or_exited = [&](int& status) {
    for (int i = 0; i < 1000; ++i) {
      if (::waitpid(child.pid(), &status, WUNTRACED | WNOHANG) == child.pid()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  int status = 0;
  if (!wait_stopped_or_exited(status) || !WIFSTOPPED(status)) {
    ::close(report[0]);
    return "the walk never reached " + std::string(stage);
  }
  act();
  ::kill(child.pid(), SIGCONT);
  if (!wait_stopped_or_exited(status) || WIFSTOPPED(status)) {
    ::close(report[0]);
    return "the walk went on to another entry (it followed the swap)";
  }
  std::string said;
  char buffer[4096];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<std::size_t>(n));
  ::close(report[0]);
  return said;
}

TEST_F(BundleSnapshot, AFileGrowingWhileItIsReadIsRefused) {
  if (!holds_built) GTEST_SKIP() << "built without the test hold points";
  const std::string file = put("grows.bin", std::string(3 << 20, 'g'));
  const std::string said = walk_held(bundle_, "bundle-read", [&] { std::ofstream(file, std::ios::app) << "more"; });
  EXPECT_EQ(said.rfind("grows.bin: grew while it was read", 0), 0u) << said;
}

TEST_F(BundleSnapshot, AFileRewrittenInPlaceWhileItIsReadIsRefused) {
  if (!holds_built) GTEST_SKIP() << "built without the test hold points";
  const std::string file = put("same-size.bin", std::string(3 << 20, 's'));
  const std::string said = walk_held(bundle_, "bundle-read", [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a coarse clock still ticks
    const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    (void)!::pwrite(fd, "S", 1, (2 << 20) + 7);
    ::close(fd);
  });
  EXPECT_EQ(said.rfind("same-size.bin: changed while it was read", 0), 0u) << said;
}

TEST_F(BundleSnapshot, ADirectorySwappedForASymlinkMidWalkIsRefusedNeverFollowed) {
  if (!holds_built) GTEST_SKIP() << "built without the test hold points";
  put("d/f", "in the bundle");
  const std::string elsewhere = dir_ + "/elsewhere";
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere + "/secret") << "not the bundle's";
  const std::string said = walk_held(bundle_, "bundle-entry", [&] {
    fs::rename(bundle_ + "/d", dir_ + "/d-moved");
    fs::create_directory_symlink(elsewhere, bundle_ + "/d");
  });
  EXPECT_EQ(said, "d: replaced while the bundle was read (a directory, then not)");
}

TEST_F(BundleSnapshot, ADirectorySwappedForAnotherMidWalkIsRefused) {
  if (!holds_built) GTEST_SKIP() << "built without the test hold points";
  put("d/f", "in the bundle");
  const std::string said = walk_held(bundle_, "bundle-entry", [&] {
    fs::rename(bundle_ + "/d", dir_ + "/d-moved");
    fs::create_directories(bundle_ + "/d");
  });
  EXPECT_EQ(said, "d: replaced while the bundle was read (another directory)");
}

// A refused snapshot leaves nothing in the run directory: each hostile kind, copied as far as the
// walk got before it.
TEST_F(BundleSnapshot, ARefusedSnapshotLeavesNothingBehind) {
  if (::geteuid() != 0) GTEST_SKIP() << "the run directories are root's";
  put("a/first.bin", std::string(1 << 20, 'a'));  // copied before the refusal is found
  ASSERT_EQ(::symlink("/etc/shadow", (bundle_ + "/z-link").c_str()), 0);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(std::string(32, 'c'));
              try {
                take_bundle_snapshot(bundle_, {}, {}, dir, 65534, 65534, "--bundle", "--bundle-sha256");
                return "accepted";
              } catch (const failure& f) {
                const std::string said = f.what();
                if (f.verdict() != sandbox::verdict::input_refused) return "not input_refused: " + said;
                if (said != "--bundle " + bundle_ +
                                ": z-link: a symbolic link, refused: a bundle holds only regular "
                                "files and directories")
                  return "said: " + said;
              }
              for (const auto& e : fs::directory_iterator(dir.path()))
                if (e.path().filename() == "bundle") return std::string("left behind: ") + e.path().string();
              return "";
            }),
            "");
}

// The free-space check: a copy that would leave the run directory's file system with less than
// its reserve is refused before the file is copied (host_refused: the host's room, not the
// bundle), and nothing is left behind.
TEST_F(BundleSnapshot, ACopyThatDoesNotFitTheRunDirectoryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "the run directories are root's";
  put("weights.bin", std::string(24 << 20, 'w'));
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              // A small file system under the state directories, in the child's own mount namespace.
              if (::mount("plb-bundle-space", "/var/lib", "tmpfs", 0, "mode=0755,size=80m") != 0)
                return "tmpfs: " + std::string(std::strerror(errno));
              const run_directory dir(std::string(32, 'e'));
              try {
                take_bundle_snapshot(bundle_, {}, {}, dir, 65534, 65534, "--bundle", "--bundle-sha256");
                return "accepted";
              } catch (const failure& f) {
                const std::string said = f.what();
                if (f.verdict() != sandbox::verdict::host_refused) return "not host_refused: " + said;
                if (said.find("weights.bin: its copy needs 25165824 bytes") == std::string::npos)
                  return "said: " + said;
              }
              if (fs::exists(dir.path() + "/bundle")) return std::string("left behind");
              return "";
            }),
            "");
}

}  // namespace
}  // namespace plb::runner
