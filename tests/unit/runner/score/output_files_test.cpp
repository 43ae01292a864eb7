// SPDX-License-Identifier: Apache-2.0
// The predictions CSV the tool publishes: row numbers or verbatim IDs, shortest round-trip numbers.
// And the room its file system must have before a run (issue 33 item 7): the bound on what both
// outputs can take, and the decision that holds the free bytes and inodes to it.

#include <gtest/gtest.h>

#include "plb/sandbox/stderr_diagnostics.hpp"
#include "runner/score/output_files.hpp"

namespace plb::runner {
namespace {

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

// The decision: enough is enough, one byte or inode short is refused by what is short, and a file
// system that counts no inodes is held to its bytes only.
TEST(OutputSpace, TheDecisionHoldsFreeBytesAndInodesToTheNeed) {
  const output_space need{1000, 2, true};
  EXPECT_TRUE(space_fits(need, {1000, 2, true}));
  EXPECT_TRUE(space_fits(need, {1u << 30, 1000, true}));
  EXPECT_EQ(space_fits(need, {999, 2, true}).error().what, "1000 bytes needed, 999 free");
  EXPECT_EQ(space_fits(need, {0, 0, true}).error().what, "1000 bytes needed, 0 free; 2 inodes needed, 0 free");
  EXPECT_EQ(space_fits(need, {5000, 1, true}).error().what, "2 inodes needed, 1 free");
  EXPECT_TRUE(space_fits(need, {5000, 0, false})) << "inodes not counted (f_files 0)";
}

// The bound holds what the tool really writes at its worst: as many rows as the limits admit,
// each with the longest number, labelled by row number or by long IDs that need quoting.
TEST(OutputSpace, TheBoundHoldsTheLongestPredictionsCsv) {
  const std::uint64_t values = 3000, block = 4096;
  sandbox::feature_table t;
  t.features = {"a", "b", "c"};
  const std::vector<double> worst(values / 3, -2.2250738585072014e-308);
  t.values.assign(values, 0);
  const std::string by_row = render_predictions_csv(t, worst);
  const output_space need = output_space_needed(values, t.features, "", 0, 0, 0, block);
  EXPECT_GE(need.bytes, by_row.size() + (64u << 10) + 2 * block);
  EXPECT_EQ(need.inodes, 2U);
  t.id_column = "id,\"x\"";
  t.ids.assign(worst.size(), std::string(40, '"'));  // every byte doubled, and quoted
  const std::string by_id = render_predictions_csv(t, worst);
  const std::uint64_t data_bytes = 41 * t.ids.size();  // at least the IDs and their separators
  EXPECT_GE(output_space_needed(values, t.features, t.id_column, data_bytes, 0, 0, block).bytes,
            by_id.size() + (64u << 10) + 2 * block);
  // Every row the limits admit counts, however small output_mib is: the output cap grows with the
  // rows (output_cap_bytes), so a correct answer to 10,000,000 one-column rows can be published.
  const std::uint64_t most = 10'000'000;
  EXPECT_GE(output_space_needed(most, {"a"}, "", 0, 0, 0, block).bytes, most * (24 + 2));
}

// The operator's diagnostics file (--keep-stderr) is a third output: asked for, the room reserved
// holds the largest file render_diagnostics can write for the tail and one more inode; not asked
// for, the need is what it was.
TEST(OutputSpace, AnAskedForDiagnosticsFileIsReservedAtItsLongest) {
  constexpr std::uint64_t block = 4096, values = 1000, tail = 64 * 1024;
  const output_space without = output_space_needed(values, {"a"}, "", 0, 0, 0, block);
  const output_space with = output_space_needed(values, {"a"}, "", 0, 0, tail, block);
  EXPECT_EQ(with.inodes, without.inodes + 1);
  sandbox::stderr_tail worst(tail);
  const std::string raw(tail, '\x01');  // every byte escaped, the longest lines wrapped
  worst.append(raw.data(), raw.size());
  const std::string file =
      sandbox::render_diagnostics(worst, "script_failed_with_a_long_verdict_name", "2026-12-06T04:00:00.123456789Z");
  EXPECT_GE(with.bytes - without.bytes, file.size() + block);
  EXPECT_LE(file.size(), sandbox::max_diagnostics_file_bytes(tail));
}

}  // namespace
}  // namespace plb::runner
