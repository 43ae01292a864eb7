// SPDX-License-Identifier: Apache-2.0
// The host-wide CPU allocator on a scratch lock directory: disjoint whole CPUs, fractions sharing
// only with fractions, locks freed with the lease and with a SIGKILLed holder, waiting and stopping.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "../../../harness/forked_child.hpp"
#include "../../temp_dir.hpp"
#include "runner/container/cpu_allocator.hpp"

namespace plb::runner {
namespace {

class CpuAllocator : public test::temp_dir_test {
 protected:
  CpuAllocator() : temp_dir_test("plb-cpus-test") {}
  cpu_allocator allocator(std::vector<unsigned> cpus) const {
    return cpu_allocator(unique_fd(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), std::move(cpus));
  }
};

TEST(CpuLists, RenderAndParse) {
  EXPECT_EQ(render_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(parse_cpu_list("0-2,5,7-8\n"), (std::vector<unsigned>{0, 1, 2, 5, 7, 8}));
  for (const char* bad : {"2-1", "1,1", "x", "1,", "3,1", "0-5000"}) EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
  EXPECT_FALSE(allowed_cpus().empty());
}

TEST(CpuLists, AnAffinityMaskHoldsExactlyTheListedCpus) {
  const cpu_set_t mask = cpu_mask("0,2-3");
  EXPECT_EQ(CPU_COUNT(&mask), 3);
  EXPECT_TRUE(CPU_ISSET(0, &mask));
  EXPECT_FALSE(CPU_ISSET(1, &mask));
  EXPECT_TRUE(CPU_ISSET(3, &mask));
  for (const char* none : {"", "x", "3,1"}) {
    const cpu_set_t empty = cpu_mask(none);
    EXPECT_EQ(CPU_COUNT(&empty), 0) << none;
  }
}

TEST(CpuLists, NeedsInWholeCpusAndTenthSlots) {
  EXPECT_EQ(need_of(1000).whole, 1u);
  EXPECT_EQ(need_of(1000).slots, 0u);
  EXPECT_EQ(need_of(250).whole, 0u);
  EXPECT_EQ(need_of(250).slots, 3u);
  EXPECT_EQ(need_of(1500).whole, 1u);
  EXPECT_EQ(need_of(1500).slots, 5u);
}

TEST_F(CpuAllocator, ConcurrentWholeRunsGetDisjointCpus) {
  const auto a = allocator({0, 1, 2});
  const cpu_lease one = a.try_acquire(1000);
  const cpu_lease two = a.try_acquire(2000);
  EXPECT_EQ(one.list(), "0");
  EXPECT_EQ(two.list(), "1-2");
  EXPECT_EQ(allocator({0, 1, 2}).try_acquire(1000).list(), "") << "another allocator (process) finds none free";
}

TEST_F(CpuAllocator, FractionsShareACpuOnlyWithEachOther) {
  const auto a = allocator({0, 1});
  const cpu_lease half = a.try_acquire(500);
  const cpu_lease quarter = a.try_acquire(250);
  EXPECT_EQ(half.list(), "1") << "fractions from the highest CPU down";
  EXPECT_EQ(quarter.list(), "1") << "two fractions share it";
  const cpu_lease whole = a.try_acquire(1000);
  EXPECT_EQ(whole.list(), "0");
  EXPECT_EQ(a.try_acquire(1000).list(), "") << "a whole run never shares a fraction's CPU";
  EXPECT_EQ(a.try_acquire(300).list(), "") << "only 2 tenths of CPU 1 are left";
  EXPECT_EQ(a.try_acquire(200).list(), "1");
}

TEST_F(CpuAllocator, ALeaseFreesItsCpusWhenItEnds) {
  const auto a = allocator({0});
  {
    const cpu_lease held = a.try_acquire(1000);
    EXPECT_EQ(a.try_acquire(100).list(), "");
  }
  EXPECT_EQ(a.try_acquire(1000).list(), "0");
}

TEST_F(CpuAllocator, AKilledHolderFreesItsCpus) {
  int ready[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  const unique_fd ready_read(ready[0]), ready_write(ready[1]);
  test::forked_child holder([&] {  // killed and reaped on every way out
    const cpu_lease held = allocator({0}).try_acquire(1000);
    (void)!::write(ready[1], held.list().empty() ? "n" : "y", 1);
    ::pause();
  });
  ASSERT_TRUE(holder);
  char c = 0;
  ASSERT_EQ(::read(ready_read.get(), &c, 1), 1);
  EXPECT_EQ(c, 'y');
  EXPECT_EQ(allocator({0}).try_acquire(1000).list(), "") << "held by the child";
  holder.stop();
  EXPECT_EQ(allocator({0}).try_acquire(1000).list(), "0") << "the kernel freed the dead holder's locks";
}

TEST_F(CpuAllocator, ARunWaitsForAFreeCpuAndAStopEndsTheWait) {
  const auto a = allocator({0});
  auto held = std::make_unique<cpu_lease>(a.try_acquire(1000));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    held.reset();
  });
  const auto began = std::chrono::steady_clock::now();
  const cpu_lease got = a.acquire(1000, cancellation());
  EXPECT_EQ(got.list(), "0");
  EXPECT_GE(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(150));
  release.join();
  sandbox::stop_source stop;
  stop.request_stop(SIGTERM);
  EXPECT_THROW(a.acquire(1000, cancellation(&stop)), interrupted);
}

// Issue 33 item 9: the allocator reads no cgroup file; its CPUs are this process's affinity, which
// on a cgroup v2 host is its cgroup's cpuset.cpus.effective (a Slurm job's there). It reads that
// file's format (the kernel's CPU list) and hands out only those CPUs, however they are spread.
TEST_F(CpuAllocator, TheCpusOfAV2CgroupAreTheOnlyOnesHandedOut) {
  const std::string tree = dir_ + "/sys-fs-cgroup";
  std::filesystem::create_directories(tree + "/system.slice/slurmstepd.scope/job_7");
  const std::string file = tree + "/system.slice/slurmstepd.scope/job_7/cpuset.cpus.effective";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("1,4-5\n", f);
  std::fclose(f);
  const auto text = read_file(file);
  ASSERT_TRUE(text);
  const std::vector<unsigned> cpus = parse_cpu_list(*text);
  ASSERT_EQ(cpus, (std::vector<unsigned>{1, 4, 5}));
  const auto a = allocator(cpus);
  const auto two = a.try_acquire(2000);
  EXPECT_EQ(two.list(), "1,4");
  const auto one = a.try_acquire(1000);
  EXPECT_EQ(one.list(), "5");
  EXPECT_EQ(a.try_acquire(100).list(), "") << "no CPU outside the cgroup's";
}

TEST_F(CpuAllocator, MoreThanThereIsGetsEveryCpu) { EXPECT_EQ(allocator({0, 1}).try_acquire(4000).list(), "0-1"); }

}  // namespace
}  // namespace plb::runner
