// SPDX-License-Identifier: Apache-2.0
// The in-memory API's request checks: each bad size is a usage error naming its field, and absurd
// dimensions are refused before anything is allocated, which a child under a small address-space
// limit proves without timing anything.
#include "runner/score/in_memory_request.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "../../../harness/forked_child.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

// The in-memory API's request: a small good one, and each bad size named by its field.
class InMemoryChecks : public ::testing::Test {
 protected:
  sandbox::in_memory_request good() const {
    sandbox::in_memory_request r;
    r.script_bytes = "print(1)\n";
    r.script_sha256 = std::string(64, 'a');
    r.runtime_image = "sha256:" + std::string(64, 'b');
    r.features = matrix.data();
    r.rows = 3;
    r.columns = 2;
    return r;
  }
  // The verdict and message check_in_memory_request gives `r` ("" when it accepts it).
  static std::string refusal(const sandbox::in_memory_request& r) {
    try {
      check_in_memory_request(r);
      return "";
    } catch (const failure& f) {
      return (f.verdict() == sandbox::verdict::usage_error ? "usage_error: " : "other verdict: ") +
             std::string(f.what());
    }
  }
  std::vector<double> matrix = {1, 2, 3, 4, 5, 6};
  double one = 1;  // what an absurd request points at: nothing past it may be read
};

TEST_F(InMemoryChecks, AGoodRequestPassesWithEveryTaskType) {
  for (const sandbox::task_type t : sandbox::task_types) {
    auto r = good();
    r.task = t;
    const score_request checked = check_in_memory_request(r);
    EXPECT_EQ(checked.task, t);
    ASSERT_NE(checked.table, nullptr);
    EXPECT_EQ(checked.table->features, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(checked.table->values, matrix);
  }
}

TEST_F(InMemoryChecks, EachBadSizeIsNamed) {
  struct bad_case {
    std::function<void(sandbox::in_memory_request&)> spoil;
    std::string phrase;
  };
  const bad_case cases[] = {
      {[](auto& r) { r.task = static_cast<sandbox::task_type>(77); }, "usage_error: task = 77: not a task type"},
      {[](auto& r) { r.limits.input_values = 0; }, "usage_error: limits.input_values = 0 values: outside"},
      {[](auto& r) { r.script_bytes = std::string(8 * 1024 * 1024 + 1, '#'); },
       "usage_error: script_bytes: 8388609 bytes, more than limits.script_mib = 8 MiB"},
      {[](auto& r) { r.rows = 0; }, "usage_error: rows and columns: 0 rows by 2 columns"},
      {[](auto& r) { r.columns = 0; }, "usage_error: rows and columns: 3 rows by 0 columns"},
      {[](auto& r) { r.rows = 1'000'001; }, "usage_error: rows = 1000001: more than limits.input_values = 1000000"},
      {[](auto& r) { r.columns = 1'000'001; },
       "usage_error: columns = 1000001: more than limits.input_values = 1000000"},
      {[](auto& r) {
         r.rows = 1001;
         r.columns = 1000;
       },
       "usage_error: rows x columns: 1001 x 1000 values, more than limits.input_values = 1000000"},
      {[](auto& r) {
         r.rows = 1;
         r.columns = 100'000;
       },
       "usage_error: columns = 100000: more default column names than a header holds"},
      {[](auto& r) { r.feature_names = {"a"}; }, "usage_error: feature_names: 1 names for 2 columns"},
      {[](auto& r) {
         r.feature_names = {"a", std::string(1 << 20, 'b')};
       },
       "usage_error: feature_names: more than 1048576 bytes together"},
      {[](auto& r) {
         r.feature_names = {"a", "a"};
       },
       "usage_error: feature_names a: given more than once"},
  };
  for (const auto& c : cases) {
    auto r = good();
    c.spoil(r);
    EXPECT_EQ(refusal(r).substr(0, c.phrase.size()), c.phrase);
  }
}

// The requests (1 x 100,000,000 took 36 s and 2 GiB; 2^32 x 2^32 tried 32 GiB), each in a
// child whose address space may grow by only 64 MiB: a check that allocates before it bounds dies
// of bad_alloc there at once, where the bounded one refuses the field by name.
TEST_F(InMemoryChecks, AbsurdDimensionsAreRefusedBeforeAnyAllocation) {
  struct absurd {
    std::size_t rows, columns;
    std::string phrase;
  };
  const absurd cases[] = {
      {1, 100'000'000, "usage_error: columns = 100000000: more than limits.input_values"},
      {std::size_t{1} << 32, std::size_t{1} << 32, "usage_error: rows = 4294967296: more than limits.input_values"},
      {std::numeric_limits<std::size_t>::max(), 2, "usage_error: rows = 18446744073709551615: more than"},
  };
  std::size_t vm_kib = 0;  // this process's address space now
  {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoul(line.substr(7));
  }
  ASSERT_GT(vm_kib, 0U);
  for (const auto& c : cases) {
    auto r = good();
    r.features = &one;
    r.rows = c.rows;
    r.columns = c.columns;
    for (const bool named : {false, true}) {
      if (named) r.feature_names.assign(1, "a");  // a wrong count of names is no way past the bound
      test::forked_child child([&] {
        const rlimit cap{(vm_kib << 10) + (64 << 20), (vm_kib << 10) + (64 << 20)};
        if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(3);
        try {
          ::_exit(refusal(r).rfind(c.phrase, 0) == 0 ? 0 : 1);
        } catch (const std::bad_alloc&) {
          ::_exit(2);  // what the unbounded check did
        }
      });
      ASSERT_TRUE(child);
      const int status = child.wait();
      ASSERT_TRUE(WIFEXITED(status)) << status;
      EXPECT_EQ(WEXITSTATUS(status), 0) << c.rows << " x " << c.columns << (named ? " with names" : "")
                                        << ": 1 wrong refusal, 2 bad_alloc, 3 no rlimit";
    }
  }
}

// The in-memory request's bundle is checked as the file request's: both or neither, named by its
// fields; a request with both carries them into the run (the snapshot then reads the directory).
TEST_F(InMemoryChecks, ABundleIsBothFieldsOrNeither) {
  EXPECT_FALSE(check_in_memory_request(good()).has_bundle());
  auto r = good();
  r.bundle_path = "/srv/bundle";
  EXPECT_EQ(refusal(r),
            "usage_error: bundle_path /srv/bundle: given without bundle_sha256 (a bundle runs only "
            "against its reviewed digest)");
  r.bundle_sha256 = std::string(64, 'c');
  const score_request checked = check_in_memory_request(r);
  ASSERT_TRUE(checked.has_bundle());
  EXPECT_EQ(checked.bundle, "/srv/bundle");
  EXPECT_EQ(checked.bundle_sha256->hex(), std::string(64, 'c'));
  r.bundle_path.clear();
  EXPECT_EQ(refusal(r), "usage_error: bundle_sha256: given without bundle_path (the bundle's directory)");
}

}  // namespace
}  // namespace plb::runner
