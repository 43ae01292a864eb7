// SPDX-License-Identifier: Apache-2.0
// explain's two renderings of what it found, from a given explanation (explain() itself asks the
// daemon: tests/gvisor/ and the CLI's explain tests): every limit with its bounds, each check as
// it came out, the argv one word a line, and for scripts the same as JSON with the call budget.
#include "runner/score/explain.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <boost/json.hpp>

#include "runner/engine/call_budget.hpp"
#include "runner/score/request_check.hpp"

namespace plb::runner {
namespace {

explanation example() {
  sandbox::scoring_request r;
  r.model_path = "/srv/model.py";
  r.model_sha256 = std::string(64, 'a');
  r.runtime_image = "sha256:" + std::string(64, 'b');
  r.data_path = "/srv/data.csv";
  r.features = {"a", "b"};
  r.output_path = "/srv/out.csv";
  explanation e{check_request(r, api_field_names(), false), 9, std::string(64, 'a'), 3, 2, 40, {}, {}, {}};
  e.checks = {{"the daemon answers", check_status::pass, "20.10.24", ""},
              {"runsc is gVisor", check_status::fail, "runsc is runc", "install runsc"},
              {"the image is present", check_status::skipped, "needs a supported runsc", ""}};
  e.argv = {"/usr/bin/docker", "run", "--runtime=runsc"};
  return e;
}

std::string text(const boost::json::value& v) { return std::string(v.as_string()); }

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST(Explain, TheLinesSayWhatWouldRunInTheCallersWords) {
  const auto lines = explanation_lines(example());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "nothing was run; a sandbox-score with these flags would:");
  EXPECT_EQ(lines[1], "  run model_path /srv/model.py (9 bytes, SHA-256 " + std::string(64, 'a') + ", verified)");
  EXPECT_TRUE(has(lines, "  /usr/bin/docker"));
  EXPECT_TRUE(has(lines, "    run"));
  EXPECT_TRUE(has(lines, "    --runtime=runsc"));
  for (const auto& i : sandbox::limit_table) {
    const std::string prefix = "  " + std::string(i.name) + " = ";
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }),
              1)
        << i.name;
  }
  for (const auto& l : lines) EXPECT_EQ(l.find('\n'), std::string::npos) << l;
}

TEST(Explain, TheJsonHoldsEachCheckEveryLimitAndTheCallBudget) {
  const boost::json::object j = explanation_json(example());
  const auto& host = j.at("host").as_array();
  ASSERT_EQ(host.size(), 3u);
  EXPECT_EQ(text(host[0].at("status")), "pass");
  EXPECT_EQ(text(host[1].at("status")), "fail");
  EXPECT_EQ(text(host[1].at("fix")), "install runsc");
  EXPECT_EQ(text(host[2].at("status")), "skipped");
  EXPECT_EQ(j.at("data").at("rows").as_uint64(), 3u);
  EXPECT_EQ(text(j.at("outputs").at("provenance")), "/srv/out.csv.sandbox.json");
  EXPECT_EQ(j.at("docker_argv").as_array().size(), 3u);
  const auto& limits = j.at("limits").as_object();
  EXPECT_EQ(limits.size(), sandbox::limit_table.size() + 1) << "every limit and the pids limit";
  const auto& budget = j.at("call_budget").as_object();
  EXPECT_EQ(budget.at("engine").as_array().size(), budget::engine.size());
  EXPECT_EQ(budget.at("execs").as_array().size(), budget::execs.size());
  EXPECT_EQ(text(budget.at("api_prefix")), "/v1.41");
}

// A bundle run's explanation names the bundle (escaped), its files, bytes and digest, and where the
// script finds it; one without a bundle says nothing of one (and its JSON holds null).
TEST(Explain, ABundleIsShownWithItsMount) {
  explanation plain = example();
  for (const auto& l : explanation_lines(plain)) {
    EXPECT_EQ(l.find("with bundle_path"), std::string::npos) << l;
    EXPECT_EQ(l.find("/sandbox/bundle"), std::string::npos) << l;
  }
  EXPECT_TRUE(explanation_json(plain).at("bundle").is_null());

  explanation e = example();
  e.request.bundle = "/srv/b\nundle";
  e.request.bundle_sha256 = sandbox::parse_sha256_hex(std::string(64, 'c')).digest;
  e.bundle = sandbox::bundle_listing{e.request.bundle_sha256.value(), 4096, 2, {}};
  const auto lines = explanation_lines(e);
  EXPECT_TRUE(has(lines, "  with bundle_path /srv/b\\x0aundle (2 files, 4096 bytes, SHA-256 " + std::string(64, 'c') +
                             ", verified) read-only at /sandbox/bundle, from the bundle cache's copy "
                             "/var/cache/plb-sandbox/bundles/" +
                             std::string(64, 'c') + "/tree"))
      << lines[3];
  const auto j = explanation_json(e).at("bundle").as_object();
  EXPECT_EQ(text(j.at("target")), "/sandbox/bundle");
  EXPECT_EQ(j.at("bytes").as_uint64(), 4096u);
  EXPECT_EQ(j.at("files").as_uint64(), 2u);
  EXPECT_EQ(text(j.at("sha256")), std::string(64, 'c'));
}

}  // namespace
}  // namespace plb::runner
