// SPDX-License-Identifier: Apache-2.0
// Issue 33 item 9: doctor names the cgroup hierarchy and its controllers, read from the mount
// point. This VM is cgroup v1 (hybrid) and cannot be switched, so each layout is a tree built in a
// temporary directory, shaped as the kernel mounts it: v2 (unified), v1, hybrid, and none.
#include "runner/host/cgroup_hierarchy.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../../temp_dir.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

struct tree {
  fs::path root = test::make_temp_dir("plb-cgroup-tree");
  void file(const std::string& rel, const std::string& text = "") {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
  ~tree() { fs::remove_all(root); }
};

TEST(CgroupHierarchy, UnifiedV2ListsItsControllers) {
  tree t;
  t.file("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  t.file("cgroup.procs", "1\n");
  t.file("system.slice/cgroup.procs");  // a child cgroup is no hierarchy of its own
  const auto h = find_cgroup_hierarchy(t.root.string());
  EXPECT_EQ(h.version, "2");
  EXPECT_EQ(describe(h), "cgroup v2 (unified): cpu, cpuset, hugetlb, io, memory, misc, pids, rdma");
  const auto judged = judge_cgroup_hierarchy(h, "2");
  ASSERT_TRUE(judged) << judged.error().detail;
  const auto mismatch = judge_cgroup_hierarchy(h, "1");
  ASSERT_FALSE(mismatch);
  EXPECT_NE(mismatch.error().detail.find("the daemon reports cgroup v1"), std::string::npos) << mismatch.error().detail;
}

TEST(CgroupHierarchy, V2WithoutThePidsControllerIsRefused) {
  tree t;
  t.file("cgroup.controllers", "cpu memory\n");
  const auto judged = judge_cgroup_hierarchy(find_cgroup_hierarchy(t.root.string()), "2");
  ASSERT_FALSE(judged);
  EXPECT_NE(judged.error().detail.find("no pids controller"), std::string::npos) << judged.error().detail;
}

TEST(CgroupHierarchy, V1HybridAsThisMachineMountsIt) {
  tree t;
  for (const char* h : {"blkio", "cpu,cpuacct", "cpuset", "devices", "freezer", "memory", "pids", "net_cls,net_prio"})
    t.file(std::string(h) + "/cgroup.procs");
  t.file("systemd/cgroup.procs");  // a named hierarchy: no controller
  t.file("unified/cgroup.procs");
  t.file("unified/cgroup.controllers");  // systemd's unified tree, with no controllers
  const auto h = find_cgroup_hierarchy(t.root.string());
  EXPECT_EQ(h.version, "1");
  EXPECT_TRUE(h.hybrid);
  EXPECT_EQ(describe(h),
            "cgroup v1 (hybrid): blkio, cpu, cpuacct, cpuset, devices, freezer, memory, net_cls, "
            "net_prio, pids");
  EXPECT_TRUE(judge_cgroup_hierarchy(h, "1"));
  EXPECT_FALSE(judge_cgroup_hierarchy(h, "2"));
}

TEST(CgroupHierarchy, NothingMountedIsRefused) {
  tree t;
  const auto h = find_cgroup_hierarchy(t.root.string());
  EXPECT_EQ(h.version, "");
  EXPECT_FALSE(judge_cgroup_hierarchy(h, "1"));
  EXPECT_FALSE(judge_cgroup_hierarchy(find_cgroup_hierarchy((t.root / "absent").string()), "2"));
}

TEST(CgroupHierarchy, ThisHostAgreesWithItself) {
  // The real mount point, read as doctor reads it (v1 hybrid on this VM, v2 on a modern host).
  const auto h = find_cgroup_hierarchy();
  EXPECT_FALSE(h.version.empty()) << describe(h);
}

}  // namespace
}  // namespace plb::runner
