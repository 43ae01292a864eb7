// SPDX-License-Identifier: Apache-2.0
// The request checks, as a table: each bad field of a request is a usage error naming it, in its
// caller's words (the in-memory API's checks: in_memory_request_test.cpp).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "runner/score/request_check.hpp"
#include "runner/score/score.hpp"
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
  field_names names{
      "--model",     "--model-sha256", "--runtime-image",           "--data",   "--feature", "--id-column",
      "--task-type", "--output",       "--output (its provenance)", &limit_name, "--bundle", "--bundle-sha256"};
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
      {[](auto& r) { r.limits.host_runtime_tasks = 128; },  // the spec's 128: 64 busy processes overran it
       "limits.host_runtime_tasks = 128 host tasks: outside its bounds (224 to 8192, so that "
       "limits.guest_processes = 64 can all run busy in gVisor)"},
      {[](auto& r) { r.limits.cpu_millicores = 32000; },  // each field within its bounds, not together
       "limits.cpu_millicores = 32000 pins the run to 32 CPUs, whose thread pools need 65 guest processes: "
       "more than limits.guest_processes = 64 (raise it to 65, or lower the CPU limit)"},
      {[](auto& r) { r.bundle_path = "/srv/b"; }, "--bundle /srv/b: given without --bundle-sha256"},
      {[](auto& r) { r.bundle_sha256 = std::string(64, 'c'); }, "--bundle-sha256: given without --bundle"},
      {[](auto& r) {
         r.bundle_path = "/srv/b";
         r.bundle_sha256 = "abc";
       },
       "--bundle-sha256: "},
      {[](auto& r) {
         r.bundle_path = "/srv/b";
         r.bundle_sha256 = std::string(63, 'c') + "g";
       },
       "--bundle-sha256: "},
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

// No bundle: the checked request has none (the one-mount run). Both fields: the directory as
// given and the digest parsed (upper case too, as sha256sum's digits are compared as numbers).
TEST_F(RequestChecks, ABundleIsBothFieldsOrNeither) {
  EXPECT_FALSE(check_request(good(), names).has_bundle());
  EXPECT_EQ(check_request(good(), names).bundle, "");
  auto r = good();
  r.bundle_path = "/srv/bundle";
  r.bundle_sha256 = std::string(64, 'C');
  const auto checked = check_request(r, names);
  ASSERT_TRUE(checked.has_bundle());
  EXPECT_EQ(checked.bundle, "/srv/bundle");
  EXPECT_EQ(checked.bundle_sha256->hex(), std::string(64, 'c'));
  // The runner API's names, for its caller.
  r.bundle_sha256.clear();
  try {
    check_request(r, api_field_names());
    ADD_FAILURE() << "a bundle without its digest accepted";
  } catch (const failure& f) {
    EXPECT_EQ(std::string(f.what()), "bundle_path /srv/bundle: given without bundle_sha256 (a bundle runs only "
                                     "against its reviewed digest)");
  }
}

// A task type that is not one of the named values (an integer cast to the enum) is refused by
// name; every named value still passes.
TEST_F(RequestChecks, OnlyNamedTaskTypesPass) {
  auto r = good();
  r.task = static_cast<sandbox::task_type>(77);
  try {
    check_request(r, names);
    ADD_FAILURE() << "task type 77 accepted";
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::usage_error);
    EXPECT_NE(std::string(f.what()).find("--task-type = 77: not a task type"), std::string::npos) << f.what();
  }
  for (const sandbox::task_type t : sandbox::task_types) {
    r.task = t;
    EXPECT_EQ(check_request(r, names).task, t) << sandbox::name(t);
  }
}

// After the checks, what the run says about a file names it as its caller does: the runner API's
// caller reads its own field (data_path), the command line's user the flag (--data).
TEST_F(RequestChecks, TheRunsOwnMessagesNameTheCallersField) {
  const std::string dir = ::testing::TempDir() + "plb-field-names-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/model.py") << "print(1)\n";
  auto r = good();
  r.model_path = dir + "/model.py";
  r.model_sha256 = sandbox::sha256_of(std::string("print(1)\n")).digest.hex();
  r.data_path = dir + "/absent.csv";
  r.output_path = dir + "/out.csv";
  const auto refusal = [](const score_request& checked) -> std::string {
    try {
      (void)check_local_inputs(checked);
      return "accepted";
    } catch (const failure& f) {
      return f.what();
    }
  };
  EXPECT_EQ(refusal(check_request(r, api_field_names())).rfind("data_path " + r.data_path + ": ", 0), 0u)
      << refusal(check_request(r, api_field_names()));
  EXPECT_EQ(refusal(check_request(r, names)).rfind("--data " + r.data_path + ": ", 0), 0u)
      << refusal(check_request(r, names));
  r.model_path = dir + "/absent.py";
  EXPECT_EQ(refusal(check_request(r, api_field_names())).rfind("model_path " + r.model_path + ": ", 0), 0u)
      << refusal(check_request(r, api_field_names()));
  EXPECT_EQ(refusal(check_request(r, names)).rfind("--model " + r.model_path + ": ", 0), 0u)
      << refusal(check_request(r, names));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace plb::runner
