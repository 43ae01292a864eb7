// SPDX-License-Identifier: Apache-2.0
// The cgroup monitor reads v1 and v2 layouts, for both Docker cgroup drivers, from a directory
// laid out like /sys/fs/cgroup: each case is the files a container's cgroup holds and the usage
// they must give.
#include "runner/container/cgroup_monitor.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../../temp_dir.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

// A private directory standing in for /sys/fs/cgroup, removed with the test. A fresh one of its own
// (mkdtemp): a name made of the test's, as before, held a '/' for a parameterised test, and its
// removal then left the parent behind in /tmp.
struct fake_root {
  fs::path path = test::make_temp_dir("plb-cgroup");
  explicit fake_root(const std::map<std::string, std::string>& files) {
    for (const auto& [rel, text] : files) {
      fs::create_directories((path / rel).parent_path());
      std::ofstream(path / rel) << text;
    }
  }
  ~fake_root() { fs::remove_all(path); }
};

struct cgroup_case {
  const char* name;
  const char* version;
  const char* driver;
  const char* id;
  std::map<std::string, std::string> files;
  cgroup_usage want;
};

class CgroupLayouts : public ::testing::TestWithParam<cgroup_case> {};

TEST_P(CgroupLayouts, ReadTheContainersUsage) {
  const auto& c = GetParam();
  const fake_root root(c.files);
  cgroup_monitor m(c.version, c.driver, root.path.string());
  m.sample();
  EXPECT_FALSE(m.usage().seen) << "nothing is read before attach";
  m.attach(c.id);
  m.sample();
  const cgroup_usage& u = m.usage();
  EXPECT_TRUE(u.seen);
  EXPECT_EQ(u.memory_peak_bytes, c.want.memory_peak_bytes);
  EXPECT_EQ(u.memory_limit_hits, c.want.memory_limit_hits);
  EXPECT_EQ(u.oom_kills, c.want.oom_kills);
  EXPECT_EQ(u.pids_limit_hits, c.want.pids_limit_hits);
  EXPECT_EQ(u.pids_peak, c.want.pids_peak);
  EXPECT_EQ(u.cpu_nanoseconds, c.want.cpu_nanoseconds);
}

cgroup_usage usage(std::uint64_t peak, std::uint64_t limit_hits, std::uint64_t ooms, std::uint64_t pid_hits,
                   std::uint64_t pids, std::uint64_t cpu_ns) {
  cgroup_usage u;
  u.seen = true;
  u.memory_peak_bytes = peak;
  u.memory_limit_hits = limit_hits;
  u.oom_kills = ooms;
  u.pids_limit_hits = pid_hits;
  u.pids_peak = pids;
  u.cpu_nanoseconds = cpu_ns;
  return u;
}

INSTANTIATE_TEST_SUITE_P(
    Table, CgroupLayouts,
    ::testing::Values(
        cgroup_case{"v1_cgroupfs",
                    "1",
                    "cgroupfs",
                    "c0ffee",
                    {{"memory/docker/c0ffee/memory.max_usage_in_bytes", "104857600\n"},
                     {"memory/docker/c0ffee/memory.failcnt", "7\n"},
                     {"memory/docker/c0ffee/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"},
                     {"pids/docker/c0ffee/pids.events", "max 2\n"},
                     {"pids/docker/c0ffee/pids.current", "45\n"},
                     {"cpuacct/docker/c0ffee/cpuacct.usage", "1500000000\n"}},
                    usage(104857600, 7, 1, 2, 45, 1500000000)},
        cgroup_case{"v2_systemd",
                    "2",
                    "systemd",
                    "beef",
                    {{"system.slice/docker-beef.scope/memory.current", "2000\n"},
                     {"system.slice/docker-beef.scope/memory.peak", "5000\n"},
                     {"system.slice/docker-beef.scope/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n"},
                     {"system.slice/docker-beef.scope/pids.events", "max 0\n"},
                     {"system.slice/docker-beef.scope/pids.current", "12\n"},
                     {"system.slice/docker-beef.scope/cpu.stat", "usage_usec 250\nuser_usec 200\n"}},
                    usage(5000, 4, 1, 0, 12, 250000)},
        // Docker's cgroupfs driver on the unified hierarchy: <root>/docker/<id>. A kernel before
        // 5.19 has no memory.peak: the highest memory.current sampled stands in.
        cgroup_case{"v2_cgroupfs_no_memory_peak",
                    "2",
                    "cgroupfs",
                    "cafe",
                    {{"docker/cafe/memory.current", "7000\n"},
                     {"docker/cafe/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"},
                     {"docker/cafe/pids.events", "max 3\n"},
                     {"docker/cafe/pids.current", "40\n"},
                     {"docker/cafe/cpu.stat", "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n"}},
                    usage(7000, 0, 0, 3, 40, 1000000000)}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(CgroupMonitor, PeaksStayAndAVanishedCgroupLeavesTheLastValues) {
  const fake_root root({{"memory/docker/x/memory.max_usage_in_bytes", "10\n"}, {"pids/docker/x/pids.current", "9\n"}});
  cgroup_monitor m("1", "cgroupfs", root.path.string());
  m.attach("x");
  m.sample();
  std::ofstream(root.path / "pids/docker/x/pids.current") << "3\n";  // lower later: the peak stays
  m.sample();
  fs::remove_all(root.path / "memory");
  m.sample();
  EXPECT_EQ(m.usage().memory_peak_bytes, 10u);
  EXPECT_EQ(m.usage().pids_peak, 9u);
}

}  // namespace
}  // namespace plb::runner
