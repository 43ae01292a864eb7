// SPDX-License-Identifier: Apache-2.0
// The runsc identity cache against a stand-in runtime binary that counts its own runs: a second
// identification runs nothing, and anything that could change the answer (the file's content or
// metadata, the runtime arguments, a tampered entry) runs the binary again. Uses the real cache
// directory (/var/cache/plb-sandbox, as root), and removes its own entries.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "plb/sandbox/digest.hpp"
#include "runner/host/runsc_identity.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::runner {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string entries_dir() { return std::string(cache_dir) + "/" + identity_subdir; }

class IdentityCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the cache directory is root's";
    ASSERT_TRUE(check_state_dirs(true)) << "unsafe state directories";
    char dir[] = "/tmp/plb-runsc-identity.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    runtime_.path = dir_ + "/runsc";
    runtime_.args = {"--network=none", "--platform=systrap"};
    write_binary("20240729");
  }
  void TearDown() override {
    if (dir_.empty()) return;
    for (const auto& e : own_entries()) ::unlink(e.c_str());
    ::unlink(runtime_.path.c_str());
    ::unlink((dir_ + "/runs").c_str());
    ::rmdir(dir_.c_str());
  }

  // A runtime that appends a line to `runs` each time it is run.
  void write_binary(const std::string& release) {
    const std::string tmp = runtime_.path + ".new";
    std::ofstream(tmp) << "#!/bin/sh\necho run >> " << dir_ << "/runs\necho 'runsc version 0.0~" << release
                       << ".0'\necho 'spec: 1.0.2-dev'\n";
    ASSERT_EQ(::chmod(tmp.c_str(), 0755), 0);
    ASSERT_EQ(::rename(tmp.c_str(), runtime_.path.c_str()), 0);  // a new inode, as a package upgrade makes
  }
  std::size_t runs() const {
    const std::string text = read_all(dir_ + "/runs");
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  // The cache entries that name this test's binary.
  std::vector<std::string> own_entries() const {
    std::vector<std::string> found;
    if (DIR* d = ::opendir(entries_dir().c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string path = entries_dir() + "/" + e->d_name;
        if (read_all(path).find(runtime_.path) != std::string::npos) found.push_back(path);
      }
      ::closedir(d);
    }
    return found;
  }

  std::string dir_;
  runtime_entry runtime_;
};

TEST_F(IdentityCache, TheSecondIdentificationRunsNothing) {
  const runsc_identity first = identify_runsc(runtime_);
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(first.release, "20240729");
  EXPECT_EQ(first.platform, "systrap");
  EXPECT_EQ(first.sha256, sandbox::sha256_of(read_all(runtime_.path)).digest.hex());
  EXPECT_EQ(runs(), 1u);
  const runsc_identity second = identify_runsc(runtime_);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.version, first.version);
  EXPECT_EQ(second.sha256, first.sha256);
  EXPECT_EQ(runs(), 1u) << "a cached identity ran the binary";
}

TEST_F(IdentityCache, WhatWouldChangeTheAnswerRunsTheBinaryAgain) {
  (void)identify_runsc(runtime_);
  ASSERT_EQ(runs(), 1u);
  // Metadata only: the same bytes, a new ctime.
  ASSERT_EQ(::chmod(runtime_.path.c_str(), 0750), 0);
  EXPECT_FALSE(identify_runsc(runtime_).from_cache);
  EXPECT_EQ(runs(), 2u);
  // Another runtime entry for the same binary.
  runtime_.args = {"--network=none", "--platform=ptrace"};
  const runsc_identity ptrace = identify_runsc(runtime_);
  EXPECT_FALSE(ptrace.from_cache);
  EXPECT_EQ(ptrace.platform, "ptrace");
  EXPECT_EQ(runs(), 3u);
  // A new binary at the same path.
  write_binary("20250101");
  const runsc_identity upgraded = identify_runsc(runtime_);
  EXPECT_FALSE(upgraded.from_cache);
  EXPECT_EQ(upgraded.release, "20250101");
  EXPECT_EQ(runs(), 4u);
}

TEST_F(IdentityCache, ATamperedEntryIsNotTrusted) {
  (void)identify_runsc(runtime_);
  const auto entries = own_entries();
  ASSERT_EQ(entries.size(), 1u);
  std::string text = read_all(entries[0]);
  const auto at = text.find("\"release\":\"20240729\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 20, "\"release\":\"20990101\"");
  std::ofstream(entries[0], std::ios::trunc) << text;
  const runsc_identity again = identify_runsc(runtime_);
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.release, "20240729");
  EXPECT_EQ(runs(), 2u);
}

// The identity's two parts, from what runsc and the daemon say.
TEST(RunscIdentity, ReleaseFromTheVersionLine) {
  EXPECT_EQ(runsc_release("runsc version 0.0~20240729.0"), "20240729");
  EXPECT_EQ(runsc_release("runsc version 0.0~20221219.0"), "20221219");
  EXPECT_EQ(runsc_release("runsc version release-20240729.0"), "");
  EXPECT_EQ(runsc_release("runsc version 0.0~2024x729.0"), "");
  EXPECT_EQ(runsc_release("runc version 1.1.5"), "");
  EXPECT_LT(std::string("20221219"), std::string(min_runsc_release));
}

TEST(RunscIdentity, PlatformFromTheRuntimeArguments) {
  EXPECT_EQ(runsc_platform({"--network=none", "--platform=systrap"}), "systrap");
  EXPECT_EQ(runsc_platform({"--platform", "ptrace"}), "ptrace");
  EXPECT_EQ(runsc_platform({"--network=none"}), "systrap") << "runsc's own default";
  EXPECT_EQ(runsc_platform({"--platform"}), "systrap");
}

}  // namespace
}  // namespace plb::runner
