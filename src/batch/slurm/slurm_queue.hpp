// SPDX-License-Identifier: Apache-2.0
// Waiting on a submitted job array: squeue says what is still queued or running, the tasks'
// records say what each line came to. Slurm's accounting may be off (sacct is not needed).
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "batch/backend.hpp"

namespace plb::batch {

inline constexpr const char* sbatch_path = "/usr/bin/sbatch";
inline constexpr const char* squeue_path = "/usr/bin/squeue";
inline constexpr const char* scancel_path = "/usr/bin/scancel";

struct queue_state {
  bool queued = false;          // some task of the job is still pending or running
  std::size_t running = 0;      // tasks running now
  std::set<std::string> alive;  // "<job>_<task>" of every task still pending or running
};

// squeue's view of the job; a job Slurm no longer knows is not queued. Throws failure(host_refused)
// when squeue cannot answer at all.
queue_state query_queue(const std::string& job);

// Polls until the job has left the queue, rewriting the summary as records appear and handing the
// lines of workers that died back to the others (slurm_workers.hpp). Lines no worker recorded get
// host_refused (with a signed record) when every worker's node refused it, else not_run. A stop
// request cancels the job (scancel: each task removes its sandbox), waits for its tasks to end,
// and marks the lines that recorded nothing as interrupted.
batch_outcome wait_for_job(const std::string& job, const output_dir& dir, const summary_header& header,
                           const batch_plan& plan, batch_start start, const batch_hooks& hooks);

}  // namespace plb::batch
