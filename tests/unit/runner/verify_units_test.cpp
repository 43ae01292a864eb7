// SPDX-License-Identifier: Apache-2.0
// verify's pure parts: comparing predictions files, choosing a fresh path, and its exit codes.
// (The lines `batch --verify` re-runs are chosen in the batch layer: unit/batch/batch_verify_test.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "runner/score/verify.hpp"

namespace plb::runner {
namespace {

TEST(VerifyCompare, IdenticalFilesReproduce) {
  const std::string csv = "row,prediction\n0,1.5\n1,2\n";
  const auto c = compare_predictions(csv, csv);
  EXPECT_TRUE(c.identical);
  EXPECT_EQ(c.rows, 2u);
  EXPECT_EQ(c.differing_rows, 0u);
  EXPECT_EQ(c.max_abs_difference, 0.0);
}

TEST(VerifyCompare, CountsDifferingRowsAndTheLargestDifference) {
  const auto c =
      compare_predictions("id,prediction\n\"a,b\",1.5\nc,2\nd,-3\n", "id,prediction\n\"a,b\",1.25\nc,2\nd,1\n");
  EXPECT_FALSE(c.identical);
  EXPECT_EQ(c.rows, 3u);
  EXPECT_EQ(c.differing_rows, 2u);
  EXPECT_DOUBLE_EQ(c.max_abs_difference, 4.0);
}

TEST(VerifyCompare, MissingRowsDifferAndAChangedHeaderIsInfinite) {
  const auto shorter = compare_predictions("row,prediction\n0,1\n1,2\n2,3\n", "row,prediction\n0,1\n");
  EXPECT_EQ(shorter.differing_rows, 2u);
  EXPECT_EQ(shorter.rows, 1u);
  const auto header = compare_predictions("row,prediction\n0,1\n", "id,prediction\n0,1\n");
  EXPECT_TRUE(std::isinf(header.max_abs_difference));
  const auto empty = compare_predictions("", "");
  EXPECT_TRUE(empty.identical);
  EXPECT_EQ(empty.differing_rows, 0u);
  const auto garbage = compare_predictions("row,prediction\n0,1\n", "row,prediction\n0,x\n");
  EXPECT_TRUE(std::isinf(garbage.max_abs_difference));
}

TEST(VerifyPaths, AFreshPathBesideTheOriginalNeverAnExistingOne) {
  const auto dir = std::filesystem::temp_directory_path() / ("plb-verify-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string original = (dir / "team.csv").string();
  EXPECT_EQ(fresh_verify_path(original), (dir / "team.verify-1.csv").string());
  std::ofstream(dir / "team.verify-1.csv") << "x";
  std::ofstream(dir / "team.verify-2.csv.sandbox.json") << "x";
  EXPECT_EQ(fresh_verify_path(original), (dir / "team.verify-3.csv").string());
  std::filesystem::remove_all(dir);
}

TEST(VerifyCodes, EachMismatchHasItsOwnCodeApartFromEveryVerdict) {
  for (std::size_t i = 0; i < verify_mismatch_table.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(verify_mismatch_table[i].mismatch), i);
    EXPECT_NE(verify_mismatch_table[i].exit_code, verify_differs_exit_code);
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NE(verify_mismatch_table[i].exit_code, verify_mismatch_table[j].exit_code);
  }
}

}  // namespace
}  // namespace plb::runner
