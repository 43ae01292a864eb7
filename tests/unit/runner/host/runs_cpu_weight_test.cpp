// SPDX-License-Identifier: Apache-2.0
// doctor names the CPU weight of the runs' parent cgroup, for each cgroup version and driver, from a
// tree laid out as /sys/fs/cgroup in a temporary directory (this VM is v1 with cgroupfs only).
#include "runner/host/runs_cpu_weight.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../../temp_dir.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

class RunsCpuWeight : public test::temp_dir_test {
 protected:
  RunsCpuWeight() : temp_dir_test("plb-cpu-weight") {}
  void file(const std::string& rel, const std::string& text) {
    fs::create_directories((fs::path(dir_) / rel).parent_path());
    std::ofstream(fs::path(dir_) / rel) << text;
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(RunsCpuWeight, V1CgroupfsAtTheDefaultWeighsAsOneHostProcess) {
  file("cpu/docker/cpu.shares", "1024\n");
  const auto w = read_runs_cpu_weight("1", "cgroupfs", dir_);
  EXPECT_EQ(w.file, dir_ + "/cpu/docker/cpu.shares");
  ASSERT_EQ(w.weight, 1024u);
  EXPECT_TRUE(has(describe(w), "as much as one host process")) << describe(w);
  EXPECT_TRUE(has(describe(w), "setup-host raises it")) << describe(w);
}

TEST_F(RunsCpuWeight, V1RaisedCountsHostProcessesWorth) {
  file("cpu/docker/cpu.shares", "10240\n");
  const auto w = read_runs_cpu_weight("1", "cgroupfs", dir_);
  EXPECT_TRUE(has(describe(w), "= 10240, 10 host processes' worth")) << describe(w);
}

TEST_F(RunsCpuWeight, V2ReadsCpuWeightAgainstAHundred) {
  file("docker/cpu.weight", "100\n");
  file("system.slice/cpu.weight", "1000\n");
  EXPECT_TRUE(has(describe(read_runs_cpu_weight("2", "cgroupfs", dir_)), "as much as one host process"));
  const auto systemd = read_runs_cpu_weight("2", "systemd", dir_);
  EXPECT_EQ(systemd.file, dir_ + "/system.slice/cpu.weight");
  EXPECT_TRUE(has(describe(systemd), "10 host processes' worth")) << describe(systemd);
}

TEST_F(RunsCpuWeight, V1SystemdIsTheSystemSlice) {
  file("cpu/system.slice/cpu.shares", "2048\n");
  const auto w = read_runs_cpu_weight("1", "systemd", dir_);
  EXPECT_EQ(w.weight, 2048u);
  EXPECT_TRUE(has(describe(w), "2 host processes' worth")) << describe(w);
  // The set-up leaves every service's slice alone, so doctor does not send the operator to it.
  file("cpu/system.slice/cpu.shares", "1024\n");
  const std::string line = describe(read_runs_cpu_weight("1", "systemd", dir_));
  EXPECT_TRUE(has(line, "systemctl set-property system.slice")) << line;
  EXPECT_FALSE(has(line, "setup-host")) << line;
}

TEST_F(RunsCpuWeight, AbsentOrGarbledIsNamedNotGuessed) {
  EXPECT_TRUE(has(describe(read_runs_cpu_weight("1", "cgroupfs", dir_)), "is not there yet"));
  for (const char* garbled : {"", "ten\n", "10240x\n", "0\n", "-5\n"}) {
    file("cpu/docker/cpu.shares", garbled);
    const auto w = read_runs_cpu_weight("1", "cgroupfs", dir_);
    EXPECT_FALSE(w.weight) << "'" << garbled << "'";
  }
}

}  // namespace
}  // namespace plb::runner
