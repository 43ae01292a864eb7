// The run's results: the predictions CSV and its provenance. Both paths must be fresh (neither a
// file nor a symlink there), both files are created exclusively with mode 0600 and published only
// once both are complete: a failed run leaves nothing, and nothing is ever overwritten.
#pragma once

#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"

namespace plb::tool {

// Throws failure(usage_error) naming the flag when the path exists or its directory does not.
void check_fresh_output(const std::string& path, const char* flag);

std::string provenance_path_for(const std::string& output);

// `row,prediction` (rows numbered from 0 in input order) or `<id column>,prediction`; numbers in
// their shortest round-trip form.
std::string render_predictions_csv(const sandbox::feature_table& table, const std::vector<double>& predictions);

// Publishes both or neither. Throws failure(internal_error) if it cannot.
void publish_outputs(const std::string& predictions_path, const std::string& predictions_csv,
                     const std::string& provenance_path, const std::string& provenance_json);

}  // namespace plb::tool
