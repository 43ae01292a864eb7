// SPDX-License-Identifier: Apache-2.0
// The owner label: "<boot id>:<pid>:<start time>" of the process that asks, its start time read
// past a command name that holds spaces and parentheses.
#include "runner/container/owner.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../../../harness/forked_child.hpp"

namespace plb::runner {
namespace {

std::string boot_id() {
  std::string id;
  std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), id);
  return id;
}

TEST(Owner, BootIdPidAndStartTime) {
  const std::string owner = self_owner();
  const std::string prefix = boot_id() + ":" + std::to_string(::getpid()) + ":";
  ASSERT_EQ(owner.rfind(prefix, 0), 0u) << owner;
  const std::string start = owner.substr(prefix.size());
  EXPECT_FALSE(start.empty());
  EXPECT_EQ(start.find_first_not_of("0123456789"), std::string::npos) << start;
  EXPECT_EQ(self_owner(), owner) << "the same process, the same label";
}

// A child named "x) 1 2 (y" has its own PID and start time: the name cannot shift the fields.
TEST(Owner, ACommandNameWithSpacesAndParenthesesShiftsNothing) {
  const std::string parent = self_owner();
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  test::forked_child child([&] {
    ::usleep(20'000);  // a start time of its own, in clock ticks
    ::prctl(PR_SET_NAME, "x) 1 2 (y", 0, 0, 0);
    const std::string own = self_owner();
    (void)!::write(report[1], own.data(), own.size());
  });
  ASSERT_TRUE(child);
  ::close(report[1]);
  std::string owner(256, '\0');
  const ssize_t n = ::read(report[0], owner.data(), owner.size());
  ::close(report[0]);
  ASSERT_GT(n, 0);
  owner.resize(static_cast<std::size_t>(n));
  const std::string prefix = boot_id() + ":" + std::to_string(child.pid()) + ":";
  ASSERT_EQ(owner.rfind(prefix, 0), 0u) << owner;
  const std::string start = owner.substr(prefix.size()), parent_start = parent.substr(parent.rfind(':') + 1);
  EXPECT_EQ(start.find_first_not_of("0123456789"), std::string::npos) << owner;
  EXPECT_GE(std::stoull(start), std::stoull(parent_start)) << "the child started after its parent";
  EXPECT_EQ(child.wait(), 0);
}

}  // namespace
}  // namespace plb::runner
