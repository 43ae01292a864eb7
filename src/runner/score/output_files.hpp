// SPDX-License-Identifier: Apache-2.0
// The run's results: the predictions CSV and its provenance. Both paths must be fresh (neither a
// file nor a symlink there), both files are created exclusively with mode 0600 and published only
// once both are complete: a failed run leaves nothing, and nothing is ever overwritten.
#pragma once

#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"

namespace plb::runner {

// Throws failure(usage_error) naming the flag unless the file could be published there: the path
// does not exist (lstat says ENOENT, nothing else), its directory exists and takes new files, and
// its name fits the file system. Checked before anything runs, so a run is never wasted.
void check_fresh_output(const std::string& path, const char* flag);

std::string provenance_path_for(const std::string& output);

// Appends `s` as one CSV field: as is, or quoted (quotes doubled) when it holds , " CR or LF.
void append_csv_field(std::string& out, const std::string& s);

// `row,prediction` (rows numbered from 0 in input order) or `<id column>,prediction`; numbers in
// their shortest round-trip form.
std::string render_predictions_csv(const sandbox::feature_table& table, const std::vector<double>& predictions);

// Publishes both or neither. Throws failure(internal_error) if it cannot.
void publish_outputs(const std::string& predictions_path, const std::string& predictions_csv,
                     const std::string& provenance_path, const std::string& provenance_json);

// Takes back what publish_outputs just linked (a stop request arrived while publishing).
void unpublish_outputs(const std::string& predictions_path, const std::string& provenance_path) noexcept;

}  // namespace plb::runner
