// SPDX-License-Identifier: Apache-2.0
#include "runner/score/in_memory_request.hpp"

#include <cmath>

#include "plb/sandbox/csv_reader.hpp"
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
  names.data = "features";  // the matrix: no file
  names.feature = "feature_names";
  names.output = names.provenance = "-";  // nothing is published
  return names;
}

std::string n(std::uint64_t v) { return std::to_string(v); }

// Digits of c in decimal: the length of the default name "c".
std::size_t digits(std::size_t c) noexcept {
  std::size_t d = 1;
  for (; c >= 10; c /= 10) ++d;
  return d;
}

// Every size the caller passes, held to its bound before anything is allocated or copied: the
// enum and the limits first (the bounds below are the limits'), then the script's bytes, the
// matrix's dimensions and their product (overflow-safe), and the column names, given or default,
// to the bound a CSV header is held to. The first problem is a usage_error naming the field.
void check_sizes(const sandbox::in_memory_request& r, const field_names& names) {
  check_task(r.task, names);
  check_limits(r.limits, names);
  const std::uint64_t script_limit = sandbox::bytes(r.limits.script_mib);
  if (r.script_bytes.size() > script_limit)
    fail(verdict::usage_error, "script_bytes: " + n(r.script_bytes.size()) +
                                   " bytes, more than limits.script_mib = " + n(r.limits.script_mib) + " MiB");
  if (r.features == nullptr) fail(verdict::usage_error, "features: null");
  if (r.rows == 0 || r.columns == 0)
    fail(verdict::usage_error,
         "rows and columns: " + n(r.rows) + " rows by " + n(r.columns) + " columns (at least one of each)");
  const std::uint64_t values = r.limits.input_values;
  if (r.rows > values)
    fail(verdict::usage_error, "rows = " + n(r.rows) + ": more than limits.input_values = " + n(values));
  if (r.columns > values)
    fail(verdict::usage_error, "columns = " + n(r.columns) + ": more than limits.input_values = " + n(values));
  if (r.rows > values / r.columns)  // rows * columns > values, without the product's overflow
    fail(verdict::usage_error, "rows x columns: " + n(r.rows) + " x " + n(r.columns) +
                                   " values, more than limits.input_values = " + n(values));
  constexpr std::size_t header_limit = sandbox::csv_options{}.max_header_bytes;
  constexpr std::size_t overhead = sandbox::csv_options::header_name_overhead;
  if (r.feature_names.empty()) {
    // "0", "1", ...: their size counted, not built. columns <= values keeps the sum from overflowing.
    if (r.columns * (overhead + digits(r.columns - 1)) > header_limit)
      fail(verdict::usage_error, "columns = " + n(r.columns) + ": more default column names than a header holds (" +
                                     n(header_limit) + " bytes, " + n(overhead) +
                                     " a name beyond its own); name fewer columns");
    return;
  }
  if (r.feature_names.size() != r.columns)
    fail(verdict::usage_error,
         "feature_names: " + n(r.feature_names.size()) + " names for " + n(r.columns) + " columns");
  std::size_t header = 0;
  for (const std::string& name : r.feature_names) {
    header += overhead + std::min(name.size(), header_limit + 1);
    if (header > header_limit)
      fail(verdict::usage_error, "feature_names: more than " + n(header_limit) + " bytes together (" + n(overhead) +
                                     " a name beyond its own), as a CSV header is held to");
  }
}

// The table the run reads instead of a CSV: the matrix copied once, its columns named. Its sizes
// were checked by check_sizes.
std::shared_ptr<const sandbox::feature_table> table_of(const sandbox::in_memory_request& r,
                                                       std::vector<std::string> names) {
  auto table = std::make_shared<sandbox::feature_table>();
  table->features = std::move(names);
  table->values.assign(r.features, r.features + r.rows * r.columns);
  for (std::size_t i = 0; i < table->values.size(); ++i)
    if (!std::isfinite(table->values[i]))
      fail(verdict::usage_error,
           "features: row " + n(i / r.columns) + ", column " + n(i % r.columns) + ": not a finite number");
  return table;
}

}  // namespace

score_request check_in_memory_request(const sandbox::in_memory_request& r) {
  const bool has_path = !r.script_path.empty(), has_bytes = !r.script_bytes.empty();
  if (has_path == has_bytes)
    fail(verdict::usage_error, "script_path and script_bytes: exactly one of them must be set");
  const field_names names = in_memory_field_names();
  check_sizes(r, names);  // nothing is allocated for the request before this
  std::vector<std::string> columns = r.feature_names;
  if (columns.empty()) {
    columns.reserve(r.columns);
    for (std::size_t c = 0; c < r.columns; ++c) columns.push_back(std::to_string(c));
  }
  // The file path's checks, with what is not a file left out: the same rules for the digest, the
  // image, the column names and every limit.
  sandbox::scoring_request as_file;
  as_file.model_path = has_path ? r.script_path : std::string("script_bytes");
  as_file.model_sha256 = r.script_sha256;
  as_file.runtime_image = r.runtime_image;
  as_file.features = columns;
  as_file.task = r.task;
  as_file.limits = r.limits;
  as_file.bundle_path = r.bundle_path;
  as_file.bundle_sha256 = r.bundle_sha256;
  score_request checked = check_request(as_file, names, false);
  checked.data.clear();
  checked.output.clear();
  checked.provenance.clear();
  checked.publish = false;
  if (r.keep_stderr) checked.stderr_tail_bytes = check_stderr_tail(r.stderr_tail_kib);  // into the report
  if (has_bytes) checked.script_bytes = r.script_bytes;
  checked.table = table_of(r, std::move(columns));
  return checked;
}

}  // namespace plb::runner
