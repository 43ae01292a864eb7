// SPDX-License-Identifier: Apache-2.0
// The Engine answers the tool parses itself: the container list, bounded and strict.
#include "runner/engine/engine_json.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

TEST(ContainerList, NamesAndRunLabels) {
  const auto list = parse_container_list(
      R"([{"Names":["/plb-sandbox-ab"],"Labels":{"plb-sandbox.run":"ab","x":"y"}},{"Names":["/other"],"Labels":null}])");
  ASSERT_TRUE(list) << list.error().detail;
  ASSERT_EQ(list->containers.size(), 2u);
  EXPECT_EQ(list->containers[0].name, "plb-sandbox-ab");
  EXPECT_EQ(list->containers[0].run_label, "ab");
  EXPECT_EQ(list->containers[1].run_label, "");
  EXPECT_EQ(list->left_out, 0u);
}

TEST(ContainerList, BoundedAndStrict) {
  const auto problem = [](std::string_view answer) {
    const auto list = parse_container_list(answer);
    EXPECT_FALSE(list) << answer.substr(0, 40);
    EXPECT_EQ(list ? engine_error::kind::unreachable : list.error().what, engine_error::kind::bad_reply);
    return list ? std::string() : list.error().detail;
  };
  EXPECT_EQ(problem("{}"), "reply is not a JSON array");
  EXPECT_NE(problem(R"([{"Labels":{}}])").find("Names"), std::string::npos);
  EXPECT_EQ(problem(R"([{"Names":["/a"],"x":)" + std::string(40, '[') + std::string(40, ']') + "}]"),
            "reply is not valid JSON")
      << "nesting is cut at 32 levels";
  EXPECT_EQ(problem("[]x"), "reply is not valid JSON") << "nothing may follow the array";
  EXPECT_EQ(problem("[1]"), "a listed container is not an object");
  EXPECT_EQ(problem("[[]]"), "a listed container is not an object");
  EXPECT_EQ(problem(R"([{"Names":[1]}])"), "field Names missing, empty or not strings");
  EXPECT_EQ(problem(R"([{"Names":[]}])"), "field Names missing, empty or not strings");
  EXPECT_EQ(problem(R"([{"Names":"/a"}])"), "field Names missing, empty or not strings");
  EXPECT_EQ(problem(R"([{"Names":["/a"])"), "reply is not valid JSON") << "cut short";
  EXPECT_TRUE(parse_container_list("[" + std::string(5u << 20, ' ') + "]\n")) << "a large answer is no longer refused";
}

// The inspection's Created, to the nanosecond: the warden's deadlines need what the list's whole
// seconds cut off (issue 41 item 7).
TEST(ContainerInspect, CreatedToTheNanosecond) {
  const auto state = [](const std::string& created) {
    return parse_container_inspect(R"({"Id":"abc","Created":)" + created + R"(,"State":{"Status":"running"}})");
  };
  const auto c = state(R"("2026-12-06T10:00:00.700000001Z")");
  ASSERT_TRUE(c) << c.error().detail;
  EXPECT_EQ(c->created_ns, 1796551200LL * 1'000'000'000 + 700'000'001);
  EXPECT_FALSE(state(R"("yesterday")")->created_ns) << "not an engine time: unknown, never guessed";
  EXPECT_FALSE(state("17")->created_ns);
}

}  // namespace
}  // namespace plb::runner
