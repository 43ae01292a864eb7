// SPDX-License-Identifier: Apache-2.0
// Issue 33 item 3: the container list cannot blind the warden, the sweep or the preflight. It is
// read as it streams in (container_list_reader.hpp): oversized labels are cut to their bound, and
// thousands of containers cost at most the bound's memory, the tool's own and the oldest kept first.
#include "runner/engine/container_list_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "runner/engine/engine_json.hpp"

namespace plb::runner {
namespace {

// A run ID of 32 hex digits for container i.
std::string run_id(std::size_t i) {
  std::string id = std::to_string(i);
  return std::string(32 - id.size(), '0') + id;
}

// One entry as the daemon lists it, with the fields the reader skips (a big extra label among them).
std::string entry(const std::string& name, const std::string& run, std::int64_t created,
                  const std::string& extra_label = "x", const std::string& deadline = "70") {
  return R"({"Id":"f32044","Names":["/)" + name + R"("],"Image":"sha256:ea94","Command":"true","Created":)" +
         std::to_string(created) + R"(,"Ports":[],"Labels":{"other":")" + extra_label + R"(","plb-sandbox.run":")" +
         run + R"(","plb-sandbox.expires-after":")" + deadline +
         R"("},"State":"running","HostConfig":{"NetworkMode":"none"},)" +
         R"("NetworkSettings":{"Networks":{"none":{"IPAMConfig":null,"Aliases":null}}},"Mounts":[]})";
}

std::string ours(std::size_t i, std::int64_t created, const std::string& extra = "x") {
  return entry("plb-sandbox-" + run_id(i), run_id(i), created, extra);
}

// Fed in pieces of `step` bytes, as a socket hands them over.
engine_result<container_list> read_in_pieces(const std::string& answer, std::size_t step, std::size_t bound) {
  container_list_reader reader(bound);
  for (std::size_t at = 0; at < answer.size(); at += step)
    if (!reader.feed(std::string_view(answer).substr(at, step))) break;
  return reader.finish();
}

TEST(ContainerListReader, LabelsOfAMegabyteAreCutAndTheToolsContainerStillRead) {
  const std::string huge(1'100'000, 'A');  // what POST /containers/create accepts
  std::string answer = "[";
  for (int i = 0; i < 4; ++i) answer += entry("attacker-" + std::to_string(i), huge, 1000 + i, huge) + ",";
  answer += ours(7, 900) + "]\n";
  ASSERT_GT(answer.size(), 8u << 20) << "larger than the old 4 MiB cap twice over";
  for (const std::size_t step : {std::size_t(1) << 16, std::size_t(4093)}) {
    const auto list = read_in_pieces(answer, step, max_listed_containers);
    ASSERT_TRUE(list) << list.error().detail;
    ASSERT_EQ(list->containers.size(), 5u);
    EXPECT_EQ(list->oversized, 4u);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(list->containers[i].run_label, std::string(max_run_label_bytes, 'A'));
    const labelled_container& c = list->containers[4];
    EXPECT_EQ(c.name, "plb-sandbox-" + run_id(7));
    EXPECT_EQ(c.run_label, run_id(7));
    EXPECT_EQ(c.deadline_label, "70");
    EXPECT_EQ(c.created, 900);
    EXPECT_EQ(c.state, "running");
  }
}

TEST(ContainerListReader, OversizedNamesStateAndDeadlineAreCutToTheirBounds) {
  const std::string answer = R"([{"Names":["/)" + std::string(1000, 'n') + R"("],"State":")" + std::string(100, 's') +
                             R"(","Labels":{"plb-sandbox.expires-after":")" + std::string(5000, '9') + R"("}}])";
  const auto list = parse_container_list(answer);
  ASSERT_TRUE(list) << list.error().detail;
  ASSERT_EQ(list->containers.size(), 1u);
  EXPECT_EQ(list->containers[0].name.size(), max_name_bytes - 1) << "the bound counts Docker's leading '/'";
  EXPECT_EQ(list->containers[0].state.size(), max_state_bytes);
  EXPECT_EQ(list->containers[0].deadline_label, std::string(max_deadline_label_bytes, '9'));
  EXPECT_EQ(list->oversized, 1u);
}

TEST(ContainerListReader, AKeyOfAMegabyteMatchesNothing) {
  const std::string answer =
      R"([{"Names":["/a"],"Labels":{")" + std::string(1u << 20, 'k') + R"(":"v","plb-sandbox.run":"r"}}])";
  const auto list = parse_container_list(answer);
  ASSERT_TRUE(list) << list.error().detail;
  EXPECT_EQ(list->containers[0].run_label, "r");
  const auto prefixed =
      parse_container_list(R"([{"Names":["/a"],"Labels":{"plb-sandbox.run)" + std::string(100, 'x') + R"(":"r"}}])");
  ASSERT_TRUE(prefixed);
  EXPECT_EQ(prefixed->containers[0].run_label, "") << "a longer key that starts like the run label is not it";
}

TEST(ContainerListReader, DuplicatedKeysReadAsTheDomReadsThem) {
  const auto list = parse_container_list(
      R"([{"Names":["/x"],"Names":["/plb-sandbox-ab"],"Created":5,"Created":"late","Labels":{"plb-sandbox.run":"ab",)"
      R"("plb-sandbox.run":{"nested":"no"}},"State":"running","State":7}])");
  ASSERT_TRUE(list) << list.error().detail;
  const labelled_container& c = list->containers[0];
  EXPECT_EQ(c.name, "plb-sandbox-ab");
  EXPECT_EQ(c.run_label, "") << "the last value is an object: no run label";
  EXPECT_EQ(c.created, 0);
  EXPECT_EQ(c.state, "");
}

TEST(ContainerListReader, ThousandsOfContainersPastTheOld4MiBAnswer) {
  std::string answer = "[";
  const std::size_t n = 12000;
  for (std::size_t i = 0; i < n; ++i) {  // appended apart: GCC 12's -Wrestrict false positive at -O3
    if (i > 0) answer += ',';
    answer += ours(i, static_cast<std::int64_t>(2'000'000 - i));
  }
  answer += "]";
  ASSERT_GT(answer.size(), 4u << 20);
  const auto list = read_in_pieces(answer, 1u << 14, max_listed_containers);
  ASSERT_TRUE(list) << list.error().detail;
  EXPECT_EQ(list->containers.size(), n);
  EXPECT_EQ(list->left_out, 0u);
  EXPECT_EQ(list->containers[n - 1].name, "plb-sandbox-" + run_id(n - 1)) << "in the daemon's order";
}

TEST(ContainerListReader, PastTheBoundTheToolsOwnAndTheOldestAreKept) {
  // Newest first, as the daemon lists: 3000 strangers carrying the run label (the oldest of all
  // among them), then 1000 of the tool's own. A bound of 1500 keeps the tool's 1000 and the 500
  // oldest strangers, and counts the rest.
  std::string answer = "[";
  for (std::size_t i = 0; i < 1000; ++i) answer += ours(i, static_cast<std::int64_t>(10'000 - i)) + ",";
  for (std::size_t i = 0; i < 3000; ++i)
    answer += entry("stranger-" + std::to_string(i), run_id(i), static_cast<std::int64_t>(5000 - i)) + ",";
  answer.back() = ']';
  const auto list = read_in_pieces(answer, 1u << 12, 1500);
  ASSERT_TRUE(list) << list.error().detail;
  ASSERT_EQ(list->containers.size(), 1500u);
  EXPECT_EQ(list->left_out, 2500u);
  std::size_t own = 0;
  std::int64_t newest_stranger = 0;
  for (const auto& c : list->containers) {
    if (c.name.starts_with("plb-sandbox-"))
      ++own;
    else
      newest_stranger = std::max(newest_stranger, c.created);
  }
  EXPECT_EQ(own, 1000u);
  EXPECT_EQ(newest_stranger, 5000 - 2500) << "the oldest strangers are kept, the newest given up";
}

TEST(ContainerListReader, LookAlikesWithLongDeadlinesCannotPushARealRunOut) {
  // 20 containers that look like the tool's (name and run label agree), older than the real one
  // but due an hour later: with a bound of 5, the real run (due in 70 s) is among those kept.
  std::string answer = "[" + ours(99, 5000) + ",";
  for (std::size_t i = 0; i < 20; ++i)
    answer += entry("plb-sandbox-" + run_id(i), run_id(i), static_cast<std::int64_t>(1000 + i), "x", "99999") + ",";
  answer.back() = ']';
  const auto list = read_in_pieces(answer, 1u << 10, 5);
  ASSERT_TRUE(list) << list.error().detail;
  ASSERT_EQ(list->containers.size(), 5u);
  EXPECT_EQ(list->containers[0].name, "plb-sandbox-" + run_id(99));
  EXPECT_EQ(list->left_out, 16u);
}

TEST(ContainerListReader, ARefusedAnswerStopsTheRead) {
  container_list_reader reader;
  EXPECT_FALSE(reader.feed("{\"not\":\"a list\"}"));
  EXPECT_FALSE(reader.feed("[]"));
  const auto list = reader.finish();
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().detail, "reply is not a JSON array");
}

}  // namespace
}  // namespace plb::runner
