// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/slurm_queue.hpp"

#include <chrono>
#include <sstream>

#include "support/command.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::batch {

bool never_schedulable(std::string_view reason) {
  // Not PartitionNodeLimit: Slurm also gives it while the nodes a job needs are down or drained,
  // and a node that is down may come back.
  for (const std::string_view r : {"PartitionConfig", "BadConstraints", "PartitionTimeLimit", "AccountNotAllowed",
                                   "QOSNotAllowed", "InvalidAccount", "InvalidQOS", "DependencyNeverSatisfied"})
    if (reason == r) return true;
  return false;
}

queue_state parse_queue(const std::string& squeue_out) {
  queue_state q;
  std::istringstream lines(squeue_out);
  std::string never;
  bool every_pending_never = true;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string id, state, reason;
    if (!(words >> id >> state)) continue;
    std::getline(words >> std::ws, reason);
    const bool running = state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING";
    if (!running && state != "PENDING" && state != "SUSPENDED" && state != "REQUEUED") continue;  // ended
    q.queued = true;
    q.running += running ? 1 : 0;
    q.alive.insert(id);
    if (!running && (state != "PENDING" || !never_schedulable(reason))) every_pending_never = false;
    if (!running && never.empty()) never = reason;
  }
  if (q.queued && q.running == 0 && every_pending_never) q.never_runs = never;
  return q;
}

queue_state query_queue(const std::string& job) {
  const auto out = run_command(squeue_path, {"--noheader", "--array", "--jobs=" + job, "--format=%i %T %r"},
                               std::chrono::seconds(30));
  if (out.exit_code != 0) {
    // A job that left the controller's memory is "Invalid job id": it is no longer queued.
    if (out.err.find("Invalid job id") != std::string::npos) return {};
    fail(sandbox::verdict::host_refused, "squeue failed: " + one_line(out.err));
  }
  return parse_queue(out.out);
}

}  // namespace plb::batch
