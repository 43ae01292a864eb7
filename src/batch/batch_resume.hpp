// SPDX-License-Identifier: Apache-2.0
// Resume: what a line's files in the output directory say before it runs. A line's earlier results
// are kept only when a record this host's key verifies (batch_records.hpp) vouches for them: its
// CSV and provenance must have the digests the record holds and match the line's request. Files a
// run of this tool did not write (planted, or from an older version without a MAC), files that
// are not regular files of the tool's user, and symlinks make that line alone a conflict: never
// kept, never read through, never overwritten. A recorded failure keeps its verdict unless the
// retry policy re-runs it.
#pragma once

#include <map>
#include <string>

#include <boost/json/object.hpp>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"

namespace plb::batch {

enum class resume_action { run, keep, conflict };

struct resume_decision {
  resume_action action = resume_action::run;
  line_outcome outcome;  // for keep (the earlier verdict) and conflict (not_run and why)
};

// The SHA-256 of each data file, read once per batch ("" if unreadable: such a line fails when it runs).
class data_digests {
 public:
  const std::string& of(const std::string& path);

 private:
  std::map<std::string, std::string> known_;
};

// True if `verdict_name` is re-run under `policy`.
bool retried(const std::string& verdict_name, retry_policy policy);

resume_decision decide_resume(const batch_item& item, const output_dir& dir, retry_policy policy,
                              const boost::json::object& fingerprint);

// What a success left in `dir`: the digests of its CSV and provenance and the provenance's
// fingerprint, checked against each other.
struct output_facts {
  std::string predictions_sha256, provenance_sha256;
  boost::json::object fingerprint;
  std::optional<sandbox::sandbox_usage> usage;
  std::optional<std::uint64_t> bundle_bytes;  // a bundle run's
};
// The facts, or what is missing or wrong (a file named by its path).
result<output_facts> examine_outputs(const output_dir& dir, const std::string& id);

}  // namespace plb::batch
