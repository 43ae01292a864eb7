// SPDX-License-Identifier: Apache-2.0
#include "runner/score/in_memory_request.hpp"

#include <cmath>

#include "runner/score/request_check.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

// The runner API's names (the limits' included), with the in-memory request's own fields.
field_names in_memory_field_names() noexcept {
  field_names names = api_field_names();
  names.model = "script_path";
  names.model_sha256 = "script_sha256";
  names.feature = "feature_names";
  names.output = names.provenance = "-";  // nothing is published
  return names;
}

// The table the run reads instead of a CSV: the matrix copied once, its columns named.
std::shared_ptr<const sandbox::feature_table> table_of(const sandbox::in_memory_request& r,
                                                       std::vector<std::string> names) {
  if (r.features == nullptr) fail(verdict::usage_error, "features: null");
  if (r.rows == 0 || r.columns == 0)
    fail(verdict::usage_error, "features: " + std::to_string(r.rows) + " rows by " + std::to_string(r.columns) +
                                   " columns (at least one of each)");
  if (r.rows > r.limits.input_values / r.columns)
    fail(verdict::input_refused,
         "features: " + std::to_string(r.rows) + " x " + std::to_string(r.columns) +
             " values, more than limits.input_values = " + std::to_string(r.limits.input_values));
  auto table = std::make_shared<sandbox::feature_table>();
  table->features = std::move(names);
  table->values.assign(r.features, r.features + r.rows * r.columns);
  for (std::size_t i = 0; i < table->values.size(); ++i)
    if (!std::isfinite(table->values[i]))
      fail(verdict::usage_error, "features: row " + std::to_string(i / r.columns) + ", column " +
                                     std::to_string(i % r.columns) + ": not a finite number");
  return table;
}

}  // namespace

score_request check_in_memory_request(const sandbox::in_memory_request& r) {
  const bool has_path = !r.script_path.empty(), has_bytes = !r.script_bytes.empty();
  if (has_path == has_bytes)
    fail(verdict::usage_error, "script_path and script_bytes: exactly one of them must be set");
  std::vector<std::string> names = r.feature_names;
  if (names.empty())
    for (std::size_t c = 0; c < r.columns; ++c) names.push_back(std::to_string(c));
  if (names.size() != r.columns)
    fail(verdict::usage_error,
         "feature_names: " + std::to_string(names.size()) + " names for " + std::to_string(r.columns) + " columns");
  // The file path's checks, with what is not a file left out: the same rules for the digest, the
  // image, the column names and every limit.
  sandbox::scoring_request as_file;
  as_file.model_path = has_path ? r.script_path : std::string("script_bytes");
  as_file.model_sha256 = r.script_sha256;
  as_file.runtime_image = r.runtime_image;
  as_file.features = names;
  as_file.task = r.task;
  as_file.limits = r.limits;
  score_request checked = check_request(as_file, in_memory_field_names(), false);
  checked.data.clear();
  checked.output.clear();
  checked.provenance.clear();
  checked.publish = false;
  if (has_bytes) checked.script_bytes = r.script_bytes;
  checked.table = table_of(r, std::move(names));
  return checked;
}

}  // namespace plb::runner
