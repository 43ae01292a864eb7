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

// The wall clock's decision alone: nothing seen before, so no monotonic bound yet.
std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, std::int64_t now) {
  return runner::overdue(listed, warden_clock{now, 0}, first_sightings{});
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
  const warden_status s{4242, 120, 7, 1, 4200};
  const auto line = render_warden_status(s);
  EXPECT_EQ(line, "plb-sandbox-warden pid=4242 last-pass-ms=120 removed=7 stuck=1 supervisor=4200\n");
  const auto back = parse_warden_status(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->last_pass_ms, 120);
  EXPECT_EQ(back->removed, 7u);
  EXPECT_EQ(back->stuck, 1u);
  EXPECT_EQ(back->supervisor, 4200);
  // An earlier build's warden says nothing of stuck containers, nor of a supervisor.
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0\n")->stuck, 0u);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0\n")->supervisor, 0);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=-1 removed=0 stuck=0\n")->last_pass_ms, -1);
  for (const char* bad :
       {"", "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0",  // no newline
        "other-service pid=1 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=0 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=-2 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5x removed=0 stuck=0\n", "plb-sandbox-warden pid=1 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=x\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0 supervisor=-3\n"})
    EXPECT_FALSE(parse_warden_status(bad)) << bad;
}

// Item 5 of issue 33: a backward step of the wall clock postpones nothing. The warden first sees
// a container at monotonic 500 (wall 1000, its creation); the wall clock is then stepped back by
// an hour. By the wall clock alone it would be due at wall 1040, an hour and 40 s away; by the
// monotonic clock it is due 40 s after it was first seen.
TEST(WardenOverdue, AWallClockSteppedBackPostponesNothing) {
  const std::vector<labelled_container> listed{ours(1000, "40")};
  first_sightings seen;
  seen.note(listed, 500);
  seen.note(listed, 510);  // seen again: the first sighting stays
  EXPECT_EQ(seen.first_seen(listed[0]), 500);
  EXPECT_TRUE(runner::overdue(listed, {1000 - 3600 + 39, 539}, seen).empty());
  const auto due = runner::overdue(listed, {1000 - 3600 + 40, 540}, seen);
  ASSERT_EQ(due.size(), 1u) << "due by the monotonic clock, whatever the wall clock says";
  EXPECT_EQ(due[0].seconds_past, 0);
  EXPECT_EQ(runner::overdue(listed, {1000 - 3600 + 47, 547}, seen)[0].seconds_past, 7);
}

TEST(WardenOverdue, TheEarlierBoundWinsAndAForwardMonotonicClockChangesNothingElse) {
  const std::vector<labelled_container> listed{ours(1000, "40")};
  first_sightings seen;
  seen.note(listed, 500);
  // The warden first saw it 20 s after its creation (it was restarting): the wall bound is earlier.
  const auto due = runner::overdue(listed, {1040, 520}, seen);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].seconds_past, 0);
  // Without a deadline label of the tool's, neither clock judges it.
  EXPECT_TRUE(runner::overdue({ours(1000, "x")}, {1'000'000, 1'000'000}, seen).empty());
}

TEST(WardenOverdue, SightingsHoldOnlyWhatTheLastPassListedAndANewContainerStartsAgain) {
  first_sightings seen;
  auto c = ours(1000, "40");
  seen.note({c}, 500);
  seen.note({}, 600);
  EXPECT_EQ(seen.size(), 0u) << "forgotten once no longer listed: the book is bounded by the list";
  seen.note({c}, 700);
  EXPECT_EQ(seen.first_seen(c), 700);
  auto again = c;
  again.created = 2000;  // removed and created anew under the same name
  seen.note({again}, 800);
  EXPECT_EQ(seen.first_seen(again), 800);
  EXPECT_FALSE(seen.first_seen(c)) << "a sighting belongs to one creation";
}

TEST(WardenLog, APassThatFailsSaysItsRealCause) {
  const auto line = [](engine_error::kind k, const char* detail) { return list_failure_line({k, 0, detail}); };
  EXPECT_EQ(
      line(engine_error::kind::bad_reply, "listing containers: reply is not valid JSON"),
      "the Docker daemon's container list cannot be read (listing containers: reply is not valid JSON); retrying");
  EXPECT_EQ(line(engine_error::kind::unreachable, "cannot talk to the Docker daemon at /x (Connection)"),
            "the Docker daemon does not answer (cannot talk to the Docker daemon at /x (Connection)); retrying");
  EXPECT_EQ(line(engine_error::kind::unexpected_status, "listing containers answered HTTP 500").find("does not answer"),
            std::string::npos);
}

TEST(WardenJudge, AnUnsupervisedWardenIsRefusedWithTheFix) {
  const auto judged = judge_warden(warden_status{77, 100, 0, 0, 0});
  ASSERT_FALSE(judged);
  EXPECT_NE(judged.error().detail.find("unsupervised"), std::string::npos) << judged.error().detail;
  EXPECT_NE(judged.error().fix.find("start-warden"), std::string::npos) << judged.error().fix;
  const auto fine = judge_warden(warden_status{77, 100, 0, 0, 76});
  ASSERT_TRUE(fine) << fine.error().detail;
  EXPECT_NE(fine->find("supervisor pid 76"), std::string::npos) << *fine;
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
