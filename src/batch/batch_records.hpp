// SPDX-License-Identifier: Apache-2.0
// Each line's record (`<id>.result.json`) and the request fingerprint that decides whether earlier
// outputs belong to a line. A record is written whole and renamed into place, and it ends with an
// HMAC-SHA256, under the host's batch key (host_key.hpp), over every byte before it; a success
// record carries the digests of its CSV and provenance. Resume trusts a record only if its MAC
// verifies: files a run of this tool did not write are never taken for a line's results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"
#include "runner/for_batch.hpp"
#include "support/problem.hpp"

namespace plb::batch {

inline constexpr const char* record_schema = "plb-sandbox/batch-record/2";
inline constexpr const char* unsigned_record_schema = "plb-sandbox/batch-record/1";  // before the MAC
inline constexpr std::size_t max_record_bytes = std::size_t{64} * 1024;

std::string record_path(const std::string& dir, const std::string& id);

// A provenance's or record's "usage" object; nullopt unless every figure it has is a finite,
// non-negative number (the byte and task counts whole numbers below 2^64). Missing figures read as 0.
std::optional<sandbox::sandbox_usage> usage_from_json(const boost::json::value* usage);

// What a run's provenance says about its request: model and input digests, image, task type,
// features, ID column and every limit. Two runs with the same fingerprint scored the same thing.
boost::json::object request_fingerprint(const batch_item& item, const std::string& data_sha256);
boost::json::object fingerprint_of_provenance(const boost::json::object& provenance);

// The first key where two fingerprints differ, or "" when they are equal.
std::string first_difference(const boost::json::object& a, const boost::json::object& b);

struct stored_record {
  line_outcome outcome;
  std::string provenance_sha256;  // of a success's provenance file, as its run wrote it
  boost::json::object fingerprint;
};

// A record's bytes: its fields, then `,"mac":"<64 hex>"}` and a newline, the MAC covering every
// byte before `,"mac"`. A success carries both digests, any other verdict neither.
std::string render_record(const batch_item& item, const line_outcome& outcome, const boost::json::object& fingerprint,
                          const std::string& provenance_sha256, const host_key& key);

// The MAC step alone: `body` is a serialized JSON object without its closing brace; returns it
// with `,"mac":"<64 hex>"}` and a newline. render_record's last step, and the fuzz target's.
std::string seal_record(std::string body, const host_key& key);

void write_record(const output_dir& dir, const batch_item& item, const line_outcome& outcome,
                  const boost::json::object& fingerprint, const std::string& provenance_sha256);

// Trusted only if the text is the current schema, its MAC verifies under `key`, it names `id`, and
// every field is one this tool writes (a verdict of the enum, an exit status 0-255, a printable
// one-line message, digests of 64 lowercase hex digits); otherwise refused, in the tool's words
// for the line's conflict message. Never throws on any input.
result<stored_record> parse_record(std::string_view text, const std::string& id, const host_key& key);

// The line's record file (nullopt: there is none), read only if it is a regular file of the tool's
// user (never through a symlink), at most max_record_bytes. A file that is not one is refused, for
// that line alone.
result<std::optional<stored_record>> read_record(const output_dir& dir, const std::string& id);

// A JSON object of at most max_record_bytes and depth 8, or nullopt.
std::optional<boost::json::object> parse_json_object(std::string_view text);

}  // namespace plb::batch
