// SPDX-License-Identifier: Apache-2.0
// --index I: one line of a batch as one process runs it on its node, whatever scheduled it (today a
// Slurm array task): a local run with this host's own preflight, under resume's decision.
#include "batch/batch_task.hpp"

#include "batch/batch_resume.hpp"
#include "support/failure.hpp"

namespace plb::batch {

using sandbox::verdict;

int run_batch_task(const batch_config& config, const batch_plan& plan, std::size_t index,
                   const sandbox::stop_source& stop) {
  if (index >= plan.size())
    fail(verdict::usage_error,
         "--index " + std::to_string(index) + ": the manifest has " + std::to_string(plan.size()) + " lines");
  const batch_item item = plan.item(index);
  const output_dir dir = open_output_dir(config.output_dir, false);
  data_digests digests;
  const std::string& data = digests.of(item.request.data_path);
  if (decide_resume(item, dir, config.retry, request_fingerprint(item, data)).action != resume_action::run)
    return 0;  // kept or in conflict: the submitter reports it
  const line_outcome o = run_line(item, run_hooks{cancellation(&stop), {}, nullptr}, dir, data);
  return o.state == "interrupted" ? 128 + stop.reason() : 0;
}

}  // namespace plb::batch
