// SPDX-License-Identifier: Apache-2.0
// The watchdog's CPU weight on a cgroup tree in a temporary directory: the thread joins the
// watchdogs' cgroup of the cpu hierarchy while the guard lives and goes back to its own after; a
// host without that cgroup is left alone. gvisor.kill_on_time_under_load proves it on the real one.
#include "runner/container/watchdog_weight.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// This thread's path in the cpu hierarchy, as the guard reads it; empty under cgroup v2.
std::string own_cpu_path() {
  std::ifstream in("/proc/thread-self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    std::string controllers(1, ',');  // not "," + substr: GCC 12's -Wrestrict false positive at -O3
    controllers += line.substr(a + 1, b - a - 1);
    controllers += ',';
    if (controllers.find(",cpu,") != std::string::npos) return line.substr(b + 1);
  }
  return {};
}

class WatchdogWeight : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("watchdog-weight-" + std::to_string(::getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  // A cgroup of the fake cpu hierarchy, its tasks file empty.
  fs::path make_cgroup(const std::string& path) {
    const fs::path dir = root_ / ("cpu" + path);
    fs::create_directories(dir);
    std::ofstream(dir / "tasks").close();
    return dir / "tasks";
  }
  fs::path root_;
};

TEST_F(WatchdogWeight, TheThreadJoinsTheWatchdogsCgroupAndGoesBack) {
  const std::string own = own_cpu_path();
  if (own.empty()) GTEST_SKIP() << "cgroup v2: a thread cannot leave its process's cgroup";
  const fs::path watchdogs = make_cgroup(std::string("/") + watchdog_cgroup);
  const fs::path back = make_cgroup(own == "/" ? "" : own);
  {
    const watchdog_weight weight(root_.string());
    EXPECT_TRUE(weight.joined());
    EXPECT_EQ(slurp(watchdogs), "0");  // "0": the writing thread itself
    EXPECT_EQ(slurp(back), "");
  }
  EXPECT_EQ(slurp(back), "0");
}

TEST_F(WatchdogWeight, AHostWithoutTheCgroupIsLeftAlone) {
  {
    const watchdog_weight weight(root_.string());
    EXPECT_FALSE(weight.joined());
  }
  EXPECT_TRUE(fs::is_empty(root_));  // nothing made, nothing written
}

TEST_F(WatchdogWeight, AProcessJoinsThroughCgroupProcs) {
  const fs::path dir = root_ / "cpu" / watchdog_cgroup;
  fs::create_directories(dir);
  std::ofstream(dir / "cgroup.procs").close();
  EXPECT_EQ(watchdog_cgroup_file(root_.string(), "cgroup.procs"), (dir / "cgroup.procs").string());
  EXPECT_TRUE(join_cgroup_file((dir / "cgroup.procs").c_str()));
  EXPECT_EQ(slurp(dir / "cgroup.procs"), "0");
  EXPECT_FALSE(join_cgroup_file((root_ / "cpu" / "absent" / "cgroup.procs").c_str()));
}

}  // namespace
}  // namespace plb::runner
