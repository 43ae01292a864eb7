// SPDX-License-Identifier: Apache-2.0
// The request checks, as a table: each bad field of a request is a usage error naming it.
#include <unistd.h>

#include <functional>

#include <gtest/gtest.h>

#include "runner/score/request_check.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

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

}  // namespace
}  // namespace plb::runner
