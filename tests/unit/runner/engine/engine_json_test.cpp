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

}  // namespace
}  // namespace plb::runner
