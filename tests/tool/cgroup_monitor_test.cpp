// The cgroup monitor reads v1 and v2 layouts, for both Docker cgroup drivers, from a directory
// laid out like /sys/fs/cgroup.
#include "cgroup_monitor.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace plb::tool {
namespace {

class CgroupMonitor : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/plb-cgroup-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void put(const std::string& rel, const std::string& text) {
    const auto p = std::filesystem::path(root_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string root_;
};

TEST_F(CgroupMonitor, ReadsVersion1WithTheCgroupfsDriver) {
  const std::string id = "c0ffee";
  put("memory/docker/" + id + "/memory.max_usage_in_bytes", "104857600\n");
  put("memory/docker/" + id + "/memory.failcnt", "7\n");
  put("memory/docker/" + id + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
  put("pids/docker/" + id + "/pids.events", "max 2\n");
  put("pids/docker/" + id + "/pids.current", "45\n");
  put("cpuacct/docker/" + id + "/cpuacct.usage", "1500000000\n");
  cgroup_monitor m("1", "cgroupfs", root_);
  m.sample();
  EXPECT_FALSE(m.usage().seen) << "nothing is read before attach";
  m.attach(id);
  m.sample();
  const auto& u = m.usage();
  EXPECT_TRUE(u.seen);
  EXPECT_EQ(u.memory_peak_bytes, 104857600u);
  EXPECT_EQ(u.memory_limit_hits, 7u);
  EXPECT_EQ(u.oom_kills, 1u);
  EXPECT_EQ(u.pids_limit_hits, 2u);
  EXPECT_EQ(u.pids_peak, 45u);
  EXPECT_EQ(u.cpu_nanoseconds, 1500000000u);
}

TEST_F(CgroupMonitor, ReadsVersion2WithTheSystemdDriverAndKeepsPeaks) {
  const std::string dir = "system.slice/docker-beef.scope/";
  put(dir + "memory.current", "2000\n");
  put(dir + "memory.peak", "5000\n");
  put(dir + "memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
  put(dir + "pids.events", "max 0\n");
  put(dir + "pids.current", "12\n");
  put(dir + "cpu.stat", "usage_usec 250\nuser_usec 200\n");
  cgroup_monitor m("2", "systemd", root_);
  m.attach("beef");
  m.sample();
  put(dir + "pids.current", "3\n");  // lower later: the peak stays
  m.sample();
  const auto& u = m.usage();
  EXPECT_EQ(u.memory_peak_bytes, 5000u);
  EXPECT_EQ(u.memory_limit_hits, 4u);
  EXPECT_EQ(u.oom_kills, 1u);
  EXPECT_EQ(u.pids_peak, 12u);
  EXPECT_EQ(u.cpu_nanoseconds, 250000u);
}

TEST_F(CgroupMonitor, AVanishedCgroupLeavesTheLastValues) {
  put("memory/docker/x/memory.max_usage_in_bytes", "10\n");
  cgroup_monitor m("1", "cgroupfs", root_);
  m.attach("x");
  m.sample();
  std::filesystem::remove_all(root_ + "/memory");
  m.sample();
  EXPECT_EQ(m.usage().memory_peak_bytes, 10u);
}

}  // namespace
}  // namespace plb::tool
