// SPDX-License-Identifier: Apache-2.0
// The warden's decisions on CPUs alone: which listed containers are overdue, and its status line
// both ways (the real service is driven by tests/gvisor/kill_everything.sh).
#include "runner/host/warden.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

const std::string kRun = "0123456789abcdef0123456789abcdef";

labelled_container ours(std::int64_t created, std::string after) {
  return {"plb-sandbox-" + kRun, kRun, std::move(after), created, "running"};
}

TEST(WardenOverdue, AtItsDeadlineAndPast) {
  // Created at 1000 with wall 30 + grace 10: due at 1040.
  EXPECT_TRUE(overdue({ours(1000, "40")}, 1039).empty());
  const auto due = overdue({ours(1000, "40")}, 1040);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].name, "plb-sandbox-" + kRun);
  EXPECT_EQ(due[0].seconds_past, 0);
  EXPECT_EQ(overdue({ours(1000, "40")}, 1047)[0].seconds_past, 7);
}

TEST(WardenOverdue, OnlyTheToolsOwnWithAWellFormedDeadline) {
  const std::int64_t late = 1'000'000;
  auto other_name = ours(1000, "40");
  other_name.name = "forensics-copy";  // a labelled container the tool did not create
  auto other_label = ours(1000, "40");
  other_label.run_label = "ffffffffffffffffffffffffffffffff";  // name and label disagree
  const std::vector<labelled_container> refused{
      other_name,       other_label,       ours(1000, ""),    ours(1000, "-5"),
      ours(1000, "4O"), ours(1000, "1e3"), ours(1000, " 40"), ours(0, "40"),  // no creation time from the daemon
  };
  for (const auto& c : refused) EXPECT_TRUE(overdue({c}, late).empty()) << c.name << " " << c.deadline_label;
  EXPECT_EQ(overdue({ours(1000, "3610")}, late).size(), 1u);
}

TEST(WardenOverdue, NoLabelBuysMoreThanTheLongestStartAndWallTimePlusGrace) {
  // limits.hpp bounds the start allowance at 600 s and the wall time at 3600 s; + 10 s grace. A
  // larger label counts as 4210.
  EXPECT_TRUE(overdue({ours(1000, "999999999999999999999")}, 1000 + 4209).empty());
  const auto due = overdue({ours(1000, "999999999999999999999")}, 1000 + 4210);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].seconds_past, 0);
}

TEST(WardenStatus, RoundTripsAndRefusesAnythingElse) {
  const warden_status s{4242, 120, 7, 1};
  const auto line = render_warden_status(s);
  EXPECT_EQ(line, "plb-sandbox-warden pid=4242 last-pass-ms=120 removed=7 stuck=1\n");
  const auto back = parse_warden_status(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->last_pass_ms, 120);
  EXPECT_EQ(back->removed, 7u);
  EXPECT_EQ(back->stuck, 1u);
  // An earlier build's warden says nothing of stuck containers.
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0\n")->stuck, 0u);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=-1 removed=0 stuck=0\n")->last_pass_ms, -1);
  for (const char* bad :
       {"", "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0",  // no newline
        "other-service pid=1 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=0 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=-2 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5x removed=0 stuck=0\n", "plb-sandbox-warden pid=1 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=x\n"})
    EXPECT_FALSE(parse_warden_status(bad)) << bad;
}

TEST(WardenPing, NothingListeningIsAProblemNamingTheSocket) {
  const auto status = ping_warden("/nonexistent/warden.sock", std::chrono::milliseconds(200));
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().detail.find("no warden answers at /nonexistent/warden.sock"), std::string::npos)
      << status.error().detail;
  EXPECT_NE(status.error().fix.find("plb-sandbox-warden"), std::string::npos) << "the refusal says how to start one";
}

}  // namespace
}  // namespace plb::runner
