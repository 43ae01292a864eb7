// SPDX-License-Identifier: Apache-2.0
// What squeue says of a submitted job array: which tasks are still queued or running, and whether
// the cluster will ever start them. Slurm's accounting may be off (sacct is not needed).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

namespace plb::batch {

inline constexpr const char* sbatch_path = "/usr/bin/sbatch";
inline constexpr const char* squeue_path = "/usr/bin/squeue";
inline constexpr const char* scancel_path = "/usr/bin/scancel";

struct queue_state {
  bool queued = false;          // some task of the job is still pending or running
  std::size_t running = 0;      // tasks running now
  std::set<std::string> alive;  // "<job>_<task>" of every task still pending or running
  // When no task runs and every pending one waits for a reason that no amount of waiting ends
  // (never_schedulable): that reason, else empty.
  std::string never_runs;
};

// Pending reasons Slurm gives a job whose request the cluster's configuration cannot meet as it
// stands (more CPUs or memory than a node has, a time limit above the partition's, an account or
// QOS it does not allow): the job would pend until an administrator changed the cluster.
bool never_schedulable(std::string_view reason);

// `squeue --noheader --array --format="%i %T %r"` parsed: one "<job>_<task> STATE REASON" a line.
queue_state parse_queue(const std::string& squeue_out);

// squeue's view of the job; a job Slurm no longer knows is not queued. Throws failure(host_refused)
// when squeue cannot answer at all.
queue_state query_queue(const std::string& job);

}  // namespace plb::batch
