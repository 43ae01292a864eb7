// SPDX-License-Identifier: Apache-2.0
// The predictions CSV the tool publishes: row numbers or verbatim IDs, shortest round-trip numbers.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace plb::runner
