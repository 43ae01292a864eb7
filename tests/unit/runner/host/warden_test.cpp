// SPDX-License-Identifier: Apache-2.0
// The warden's decisions on CPUs alone: which listed containers are overdue, and its status line
// both ways (the real service is driven by tests/gvisor/kill_everything.sh).
#include "runner/host/warden.hpp"

#include "runner/engine/engine_time.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

const std::string kRun = "0123456789abcdef0123456789abcdef";

labelled_container ours(std::int64_t created, std::string after) {
  return {"plb-sandbox-" + kRun, kRun, std::move(after), created, "running"};
}

constexpr std::int64_t s_ms = 1000;

// The wall clock's decision alone, at `now_ms`: nothing seen before, so no monotonic bound yet, and
// no inspection: a container listed as created in second N was created by the end of it.
std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, std::int64_t now_ms) {
  return runner::overdue(listed, warden_clock{now_ms, 0}, first_sightings{});
}

TEST(WardenOverdue, AtItsDeadlineAndPast) {
  // Listed as created in second 1000 (so by 1001 at the latest) with wall 30 + grace 10: due at 1041.
  EXPECT_TRUE(overdue({ours(1000, "40")}, 1041 * s_ms - 1).empty());
  const auto due = overdue({ours(1000, "40")}, 1041 * s_ms);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].name, "plb-sandbox-" + kRun);
  EXPECT_EQ(due[0].ms_past, 0);
  EXPECT_EQ(overdue({ours(1000, "40")}, 1048 * s_ms + 5)[0].ms_past, 7005);
}

// Issue 41 item 7: the warden compared whole seconds and removed a container 44.3 s into its 45 s
// label. Docker's Created (an inspection's, to the nanosecond) says .700 into its second; the list
// says only the second, cut down. The decision is in milliseconds and never before creation + label.
TEST(WardenDeadline, NeverBeforeCreationPlusLabelToTheMillisecond) {
  const auto created_ns = parse_engine_time("2026-12-05T10:00:00.700000001Z");
  ASSERT_TRUE(created_ns);
  const std::int64_t second = *created_ns / 1'000'000'000;  // what the list says
  const std::int64_t created_ms = creation_ms(*created_ns);
  EXPECT_EQ(created_ms, second * s_ms + 701) << "rounded up: a nanosecond past .700 is not .700";
  // 44.3 s after its creation, at the start of the second whole seconds called its deadline: not yet.
  EXPECT_EQ(ms_past_deadline(created_ms, 45, second * s_ms + 45 * s_ms), -701);
  EXPECT_EQ(ms_past_deadline(created_ms, 45, second * s_ms + 45 * s_ms + 700), -1);
  EXPECT_EQ(ms_past_deadline(created_ms, 45, second * s_ms + 45 * s_ms + 701), 0);

  // Through the warden's judgement of what it listed and learnt.
  const std::vector<labelled_container> listed{ours(second, "45")};
  first_sightings seen;
  seen.note(listed, 0);
  const auto at = [&](std::int64_t ms) { return runner::overdue(listed, {second * s_ms + ms, 0}, seen); };
  EXPECT_TRUE(at(45 * s_ms).empty()) << "unlearnt: created by the end of its listed second";
  EXPECT_TRUE(at(45 * s_ms + 999).empty());
  EXPECT_EQ(at(46 * s_ms).size(), 1u);
  seen.learn_creation(listed[0], *created_ns);
  EXPECT_TRUE(at(45 * s_ms).empty()) << "removed 44.3 s into a 45 s label";
  EXPECT_TRUE(at(45 * s_ms + 700).empty());
  ASSERT_EQ(at(45 * s_ms + 701).size(), 1u);
  EXPECT_EQ(at(45 * s_ms + 701)[0].ms_past, 0);
}

TEST(WardenDeadline, OnlyAContainerWithinTheListedSecondOfItsDeadlineIsInspected) {
  const std::vector<labelled_container> listed{ours(1000, "45"), ours(1000, "x")};
  first_sightings seen;
  seen.note(listed, 0);
  const auto wanted = [&](std::int64_t now_ms) { return needing_exact_creation(listed, {now_ms, 0}, seen).size(); };
  EXPECT_EQ(wanted(1045 * s_ms - 1), 0u) << "not due, however late in its second it was created";
  EXPECT_EQ(wanted(1045 * s_ms), 1u);
  EXPECT_EQ(wanted(1046 * s_ms - 1), 1u);
  EXPECT_EQ(wanted(1046 * s_ms), 0u) << "due, however early in its second it was created";
  seen.learn_creation(listed[0], 999 * 1'000'000'000LL + 500'000'000);
  EXPECT_FALSE(seen.creation_learnt(listed[0])) << "an inspection outside the listed second is another container's";
  seen.learn_creation(listed[0], 1000 * 1'000'000'000LL + 500'000'000);
  EXPECT_TRUE(seen.creation_learnt(listed[0]));
  EXPECT_EQ(wanted(1045 * s_ms + 100), 0u) << "learnt once, asked once";
  EXPECT_EQ(runner::overdue(listed, {1045 * s_ms + 500, 0}, seen).size(), 1u);
  seen.note(listed, 10);
  EXPECT_TRUE(seen.creation_learnt(listed[0])) << "kept from pass to pass";
}

TEST(WardenOverdue, OnlyTheToolsOwnWithAWellFormedDeadline) {
  const std::int64_t late = 1'000'000 * s_ms;
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
  // larger label counts as 4210 (after the end of the listed second).
  EXPECT_TRUE(overdue({ours(1000, "999999999999999999999")}, (1001 + 4210) * s_ms - 1).empty());
  const auto due = overdue({ours(1000, "999999999999999999999")}, (1001 + 4210) * s_ms);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].ms_past, 0);
}

TEST(WardenStatus, RoundTripsAndRefusesAnythingElse) {
  const warden_status s{4242, 120, 7, 1, 4200, 3};
  const auto line = render_warden_status(s);
  EXPECT_EQ(line, "plb-sandbox-warden pid=4242 last-pass-ms=120 removed=7 stuck=1 supervisor=4200 log-failed=3\n");
  const auto back = parse_warden_status(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->last_pass_ms, 120);
  EXPECT_EQ(back->removed, 7u);
  EXPECT_EQ(back->stuck, 1u);
  EXPECT_EQ(back->supervisor, 4200);
  EXPECT_EQ(back->log_failed, 3u);
  // An earlier build's warden says nothing of stuck containers, nor of a supervisor.
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0\n")->stuck, 0u);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0\n")->supervisor, 0);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0 supervisor=2\n")->log_failed,
            0u);
  EXPECT_EQ(parse_warden_status("plb-sandbox-warden pid=1 last-pass-ms=-1 removed=0 stuck=0\n")->last_pass_ms, -1);
  for (const char* bad :
       {"", "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0",  // no newline
        "other-service pid=1 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=0 last-pass-ms=5 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=-2 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5x removed=0 stuck=0\n", "plb-sandbox-warden pid=1 removed=0 stuck=0\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=x\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0 supervisor=-3\n",
        "plb-sandbox-warden pid=1 last-pass-ms=5 removed=0 stuck=0 supervisor=2 log-failed=-1\n"})
    EXPECT_FALSE(parse_warden_status(bad)) << bad;
}

// Item 5 of issue 33: a backward step of the wall clock postpones nothing. The warden first sees
// a container at monotonic 500 (wall 1000, its creation); the wall clock is then stepped back by
// an hour. By the wall clock alone it would be due at wall 1040, an hour and 40 s away; by the
// monotonic clock it is due 40 s after it was first seen.
TEST(WardenOverdue, AWallClockSteppedBackPostponesNothing) {
  const std::vector<labelled_container> listed{ours(1000, "40")};
  first_sightings seen;
  seen.note(listed, 500 * s_ms);
  seen.note(listed, 510 * s_ms);  // seen again: the first sighting stays
  EXPECT_EQ(seen.first_seen(listed[0]), 500 * s_ms);
  const std::int64_t behind = (1000 - 3600) * s_ms;
  EXPECT_TRUE(runner::overdue(listed, {behind + 40 * s_ms - 1, 540 * s_ms - 1}, seen).empty());
  const auto due = runner::overdue(listed, {behind + 40 * s_ms, 540 * s_ms}, seen);
  ASSERT_EQ(due.size(), 1u) << "due by the monotonic clock, whatever the wall clock says";
  EXPECT_EQ(due[0].ms_past, 0);
  EXPECT_EQ(runner::overdue(listed, {behind + 47 * s_ms, 547 * s_ms}, seen)[0].ms_past, 7 * s_ms);
}

TEST(WardenOverdue, TheEarlierBoundWinsAndAForwardMonotonicClockChangesNothingElse) {
  const std::vector<labelled_container> listed{ours(1000, "40")};
  first_sightings seen;
  seen.note(listed, 500 * s_ms);
  // The warden first saw it 20 s after its creation (it was restarting): the wall bound is earlier.
  const auto due = runner::overdue(listed, {1041 * s_ms, 521 * s_ms}, seen);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].ms_past, 0);
  // Without a deadline label of the tool's, neither clock judges it.
  EXPECT_TRUE(runner::overdue({ours(1000, "x")}, {1'000'000 * s_ms, 1'000'000 * s_ms}, seen).empty());
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
