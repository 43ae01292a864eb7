// The tool's pure units, as tables: runsc identity, the request checks (the flags' rules), the
// predictions CSV, message escaping, URL encoding and the container list answer.
#include <gtest/gtest.h>

#include "docker_engine.hpp"
#include "engine_json.hpp"
#include "failure.hpp"
#include "one_line.hpp"
#include "output_files.hpp"
#include "request_check.hpp"
#include "runsc_identity.hpp"

namespace plb::tool {
namespace {

TEST(RunscIdentity, ReleaseFromTheVersionLine) {
  EXPECT_EQ(runsc_release("runsc version 0.0~20240729.0"), "20240729");
  EXPECT_EQ(runsc_release("runsc version 0.0~20221219.0"), "20221219");
  EXPECT_EQ(runsc_release("runsc version release-20240729.0"), "");
  EXPECT_EQ(runsc_release("runsc version 0.0~2024x729.0"), "");
  EXPECT_EQ(runsc_release("runc version 1.1.5"), "");
  EXPECT_LT(std::string("20221219"), std::string(min_runsc_release));
}

TEST(RunscIdentity, PlatformFromTheRuntimeArguments) {
  EXPECT_EQ(runsc_platform({"--network=none", "--platform=systrap"}), "systrap");
  EXPECT_EQ(runsc_platform({"--platform", "ptrace"}), "ptrace");
  EXPECT_EQ(runsc_platform({"--network=none"}), "systrap") << "runsc's own default";
  EXPECT_EQ(runsc_platform({"--platform"}), "systrap");
}

// The request checks, with the command line's names: each bad field is a usage error naming it.
class RequestChecks : public ::testing::Test {
 protected:
  sandbox::scoring_request good() const {
    sandbox::scoring_request r;
    r.model_path = "/srv/model.py";
    r.model_sha256 = std::string(64, 'a');
    r.runtime_image = "sha256:" + std::string(64, 'b');
    r.data_path = "/srv/data.csv";
    r.features = {"a", "b"};
    r.output_path = "/tmp/plb-request-check-" + std::to_string(::getpid()) + ".csv";
    return r;
  }
  static std::string limit_name(sandbox::limit_field f) { return "limits." + std::string(sandbox::info(f).name); }
  field_names names{"--model",     "--model-sha256", "--runtime-image",           "--feature",
                    "--id-column", "--output",       "--output (its provenance)", &limit_name};
};

TEST_F(RequestChecks, AGoodRequestParses) {
  const auto r = check_request(good(), names);
  EXPECT_EQ(r.image.str(), "sha256:" + std::string(64, 'b'));
  EXPECT_EQ(r.provenance, r.output + ".sandbox.json");
}

TEST_F(RequestChecks, EachBadFieldIsNamed) {
  struct bad_case {
    std::function<void(sandbox::scoring_request&)> spoil;
    std::string phrase;
  };
  const bad_case cases[] = {
      {[](auto& r) { r.model_path.clear(); }, "--model is empty"},
      {[](auto& r) { r.model_sha256 = "xyz"; }, "--model-sha256: "},
      {[](auto& r) { r.runtime_image = "python:3"; }, "--runtime-image python:3: "},
      {[](auto& r) { r.features.clear(); }, "--feature: at least one"},
      {[](auto& r) {
         r.features = {"a", ""};
       },
       "--feature: empty column name"},
      {[](auto& r) {
         r.features = {"a", "a"};
       },
       "--feature a: given more than once"},
      {[](auto& r) { r.id_column = std::string(1, 'b'); },  // not = "b": GCC 12 -Wrestrict (PR 105651)
       "--id-column b: also given as a feature"},
      {[](auto& r) { r.limits.wall_seconds = 0; }, "limits.wall_seconds = 0 s: outside its bounds (1 to 3600)"},
      {[](auto& r) { r.limits.memory_mib = 65537; }, "limits.memory_mib = 65537 MiB"},
      {[](auto& r) { r.limits.output_mib = 257; }, "limits.output_mib = 257"},
      {[](auto& r) { r.output_path = "/proc/x.csv"; }, "--output /proc/x.csv: cannot create files in /proc"},
      {[](auto& r) { r.output_path = "/etc/hostname"; }, "already exists"},
      {[](auto& r) { r.output_path = "/no/such/dir/x.csv"; }, "directory /no/such/dir"},
  };
  for (const auto& c : cases) {
    auto r = good();
    c.spoil(r);
    try {
      check_request(r, names);
      ADD_FAILURE() << "accepted; expected: " << c.phrase;
    } catch (const failure& f) {
      EXPECT_EQ(f.verdict(), sandbox::verdict::usage_error);
      EXPECT_NE(std::string(f.what()).find(c.phrase), std::string::npos) << f.what();
    }
  }
}

TEST(PredictionsCsv, RowNumbersOrIdsAndShortestNumbers) {
  sandbox::feature_table t;
  t.features = {"a"};
  EXPECT_EQ(render_predictions_csv(t, {0.1, -2, 1e300}), "row,prediction\n0,0.1\n1,-2\n2,1e+300\n");
  t.id_column = "id, \"quoted\"";
  t.ids = {"x", "=cmd()", "a,b", "line\nbreak"};
  EXPECT_EQ(render_predictions_csv(t, {1, 2, 3, 4}),
            "\"id, \"\"quoted\"\"\",prediction\nx,1\n=cmd(),2\n\"a,b\",3\n\"line\nbreak\",4\n")
      << "IDs stay verbatim (joinable), quoted only as CSV requires";
}

TEST(OneLine, EveryNonPrintableByteIsEscaped) {
  EXPECT_EQ(one_line("plain text 0-9"), "plain text 0-9");
  EXPECT_EQ(one_line("a\x1b[2K\rb\x07\nc"), "a\\x1b[2K\\x0db\\x07\\x0ac");
  EXPECT_EQ(one_line("back\\slash"), "back\\\\slash") << "the escape itself cannot be forged";
  EXPECT_EQ(one_line("\xc2\x9b"), "\\xc2\\x9b") << "C1 controls too";
  EXPECT_EQ(one_line(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(UrlEncode, OnlyUnreservedCharactersStay) {
  EXPECT_EQ(url_encode("plb-sandbox_0.9~"), "plb-sandbox_0.9~");
  EXPECT_EQ(url_encode(R"({"label":["a"]})"), "%7B%22label%22%3A%5B%22a%22%5D%7D");
  EXPECT_EQ(url_encode("a/../b?c=d&e"), "a%2F..%2Fb%3Fc%3Dd%26e");
}

TEST(ContainerList, NamesAndRunLabels) {
  std::string problem;
  const auto list = parse_container_list(
      R"([{"Names":["/plb-sandbox-ab"],"Labels":{"plb-sandbox.run":"ab","x":"y"}},{"Names":["/other"],"Labels":null}])",
      problem);
  ASSERT_TRUE(list) << problem;
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "plb-sandbox-ab");
  EXPECT_EQ((*list)[0].run_label, "ab");
  EXPECT_EQ((*list)[1].run_label, "");
}

TEST(ContainerList, BoundedAndStrict) {
  std::string problem;
  EXPECT_FALSE(parse_container_list("{}", problem));
  EXPECT_EQ(problem, "reply is not a JSON array");
  EXPECT_FALSE(parse_container_list(R"([{"Labels":{}}])", problem));
  EXPECT_NE(problem.find("Names"), std::string::npos);
  EXPECT_FALSE(parse_container_list(std::string(40, '[') + std::string(40, ']'), problem));
  EXPECT_EQ(problem, "reply is not valid JSON") << "nesting is cut at 32 levels";
  EXPECT_FALSE(parse_container_list("[" + std::string(5u << 20, ' ') + "]", problem));
  EXPECT_EQ(problem, "reply larger than 4 MiB");
}

}  // namespace
}  // namespace plb::tool
