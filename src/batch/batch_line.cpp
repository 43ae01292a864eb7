// SPDX-License-Identifier: Apache-2.0
// One line of a batch: where it starts (resume), how it runs and what it leaves (its record).
#include <fcntl.h>
#include <unistd.h>

#include "batch/backend.hpp"
#include "batch/batch_resume.hpp"
#include "support/one_line.hpp"

namespace plb::batch {

using sandbox::verdict;

bool is_failure(const line_outcome& o) { return is_verdict(o.state) && o.state != sandbox::name(verdict::success); }

batch_start start_batch(const batch_config& config, const batch_plan& plan, const output_dir& dir) {
  batch_start s;
  data_digests digests;
  s.outcomes.resize(plan.size());
  for (const std::string& data : plan.data_files()) s.data_sha256.push_back(digests.of(data));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const batch_item item = plan.item(i);
    const auto decision =
        decide_resume(item, dir, config.retry, request_fingerprint(item, s.data_sha256[plan.data_index(i)]));
    if (decision.action == resume_action::run) {
      s.outcomes.set_state(i, "pending");
      s.to_run.push_back(item.index);
    } else {
      s.outcomes.set(i, decision.outcome);
    }
  }
  return s;
}

line_outcome run_line(const batch_item& item, const run_hooks& hooks, const output_dir& dir,
                      const std::string& data_sha256, const worker_report& origin) {
  // An earlier record of this line (resume verified it: a failure being retried, or a success
  // whose outputs were moved away) goes first: a stopped retry must not leave the old verdict
  // standing as if it were this run's.
  ::unlinkat(dir.fd.get(), record_name(item.id).c_str(), 0);
  // So does an earlier diagnostics file of the line (--keep-stderr): it said why that run ended, not
  // this one, and must not stand beside this run's record (the report names it) with or without the flag.
  ::unlinkat(dir.fd.get(), diagnostics_name(item.id).c_str(), 0);
  run_hooks with_origin = hooks;  // the provenance names the node and worker too
  with_origin.node = origin.node;
  with_origin.worker = origin.worker;
  const sandbox::scoring_result r = score_to_result(item.request, with_origin, manifest_names);
  line_outcome o;
  o.node = origin.node;
  o.worker = origin.worker;
  if (r.stopped_by) {
    o.state = "interrupted";
    o.message = r.message;
    return o;
  }
  o.state = std::string(sandbox::name(r.outcome));
  o.exit_code = r.exit_code;
  o.message = one_line(r.message);
  o.usage = r.usage;
  boost::json::object fingerprint = request_fingerprint(item, data_sha256);
  std::string provenance_sha256;
  if (r.outcome == verdict::success) {
    // The record vouches for what is in the directory now, read through its descriptor.
    const auto f = examine_outputs(dir, item.id);
    if (f) {
      fingerprint = f->fingerprint;  // the digest of the data as the run read it
      o.predictions_sha256 = f->predictions_sha256;
      o.bundle_bytes = f->bundle_bytes;  // the summary's and report's bundle column
      provenance_sha256 = f->provenance_sha256;
    } else {
      o.state = std::string(sandbox::name(verdict::internal_error));
      o.exit_code = sandbox::exit_code(verdict::internal_error);
      o.message = one_line("the run published its outputs, but " + f.error().what);
    }
  }
  write_record(dir, item, o, fingerprint, provenance_sha256);
  return o;
}

}  // namespace plb::batch
