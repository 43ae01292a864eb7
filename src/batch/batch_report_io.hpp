// SPDX-License-Identifier: Apache-2.0
// What `plb-sandbox report DIR` and the end of a batch do: read the batch's summary, each success's
// provenance and batch-verify.csv through the directory's descriptor (regular files of the tool's
// user only, never through a link), check every value, and write batch-report.html (0600, through
// a temporary and a rename) unless something that is not the tool's file is at that name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "batch/batch_report.hpp"

namespace plb::batch {

inline constexpr std::size_t max_summary_bytes = std::size_t{64} * 1024 * 1024;

// The report's values from the texts of the batch's files; `provenance(id)` returns a line's
// provenance text, or nullopt when there is none. Throws failure(input_refused) naming the file,
// the row and the field of the first value that is not one the tool writes.
using provenance_lookup = std::function<std::optional<std::string>(const std::string& id)>;
report_input report_input_from(const std::string& dir, std::string_view summary_json,
                               std::optional<std::string_view> verify_csv, const provenance_lookup& provenance);
// The same from the summary read in pieces (`read_some(buffer, size)` returns the bytes it put
// there, 0 at the end): no more of it is held than a buffer and one row at a time.
using summary_reader = std::function<std::size_t(char*, std::size_t)>;
// `rows_at_most` reserves room for the rows up front (untouched room is not resident), so that
// they never grow by doubling.
report_input report_input_from(const std::string& dir, const summary_reader& read_some,
                               std::optional<std::string_view> verify_csv, const provenance_lookup& provenance,
                               std::size_t rows_at_most = 0);

// batch-verify.csv: `id,result,differing_rows,max_abs_difference,selected_by,message`, one row per
// re-run line; messages and the selection are the tool's words with , and " replaced.
std::string render_verify_csv(const std::vector<report_verify_row>& rows, const std::string& selected_by);

// A verify result's name: reproduced, differs, a mismatch (verify.hpp) or a verdict.
bool is_verify_result(std::string_view result);

// A batch-verify.csv's rows; throws failure(input_refused) naming the file's line.
std::vector<report_verify_row> parse_verify_csv(const std::string& path, std::string_view text, std::string& note);

// Reads DIR (a private directory of this user, see open_output_dir) and writes DIR/batch-report.html.
// Returns the report's path. Throws failure(usage_error / input_refused / internal_error).
std::string write_batch_report(const std::string& dir);

}  // namespace plb::batch
