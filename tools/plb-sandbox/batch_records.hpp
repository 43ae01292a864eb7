// The batch's files in its output directory: each line's record (`<id>.result.json`), the request
// fingerprint that decides whether earlier outputs belong to a line, and the summary. Every file
// is written whole and renamed into place: a reader never sees half of one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "batch.hpp"

namespace plb::tool {

std::string record_path(const std::string& dir, const std::string& id);

// A provenance's or record's "usage" object (missing numbers read as 0); nullopt if it is not one.
std::optional<sandbox::sandbox_usage> usage_from_json(const boost::json::value* usage);

// What a run's provenance says about its request: model and input digests, image, task type,
// features, ID column and every limit. Two runs with the same fingerprint scored the same thing.
boost::json::object request_fingerprint(const batch_item& item, const std::string& data_sha256);
boost::json::object fingerprint_of_provenance(const boost::json::object& provenance);

// The first key where two fingerprints differ, or "" when they are equal.
std::string first_difference(const boost::json::object& a, const boost::json::object& b);

struct stored_record {
  line_outcome outcome;
  boost::json::object fingerprint;
};

void write_record(const std::string& dir, const batch_item& item, const line_outcome& outcome,
                  const boost::json::object& fingerprint);

// nullopt when there is no record; throws failure(input_refused) naming the file when there is
// one that is not a record (not a regular file, too large, not the schema).
std::optional<stored_record> read_record(const std::string& dir, const std::string& id);

// A small JSON object file, bounded (64 KiB), or nullopt if it cannot be read as one.
std::optional<boost::json::object> read_json_object(const std::string& path);

struct summary_header {
  std::string manifest, manifest_sha256, output_dir, engine;
};

std::string render_summary_csv(const std::vector<batch_item>& items, const std::vector<line_outcome>& outcomes);
std::string render_summary_json(const summary_header& header, const std::vector<batch_item>& items,
                                const std::vector<line_outcome>& outcomes);

// Both summary files, each replaced atomically. Throws failure(internal_error).
void write_summary(const summary_header& header, const std::vector<batch_item>& items,
                   const std::vector<line_outcome>& outcomes);

// Writes `contents` to dir/name through a temporary file and rename(2). Throws failure(internal_error).
void replace_file(const std::string& dir, const std::string& name, const std::string& contents);

// The summary's counts by state ("success": 3, "timeout": 1, "pending": 2, ...).
std::map<std::string, std::size_t> count_states(const std::vector<line_outcome>& outcomes);

}  // namespace plb::tool
