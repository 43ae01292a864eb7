// Resume: what a line's files in the output directory say before it runs. Outputs that belong to
// the line (their provenance matches its request, the predictions match their digest) are kept;
// outputs that do not are an error for that line and are never overwritten; a recorded failure
// keeps its verdict unless the retry policy re-runs it.
#pragma once

#include <map>
#include <string>

#include <boost/json/object.hpp>

#include "batch.hpp"

namespace plb::tool {

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

resume_decision decide_resume(const batch_item& item, const std::string& output_dir, retry_policy policy,
                              const boost::json::object& fingerprint);

}  // namespace plb::tool
