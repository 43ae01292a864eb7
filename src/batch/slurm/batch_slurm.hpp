// SPDX-License-Identifier: Apache-2.0
// The Slurm backend: W worker tasks (sbatch --array=0-<W-1>), each running `plb-sandbox batch ...
// --worker` on its node (batch_worker.hpp): one preflight, then lines claimed one at a time from
// the lines that need a run (queue/lines), --jobs at once. The submitter waits, polling squeue and
// the records, hands a dead worker's lines to the others (slurm_workers.hpp), and writes the same
// summary as the local backend.
#pragma once

#include <string>
#include <vector>

#include "batch/backend.hpp"

namespace plb::batch {

struct slurm_options {
  std::string partition, account;
  std::vector<std::string> sbatch_options;  // passed through as given, before the script
  unsigned jobs = 1;                        // runs at once in each worker
  unsigned workers = 0;                     // W (0: worker_count's default)
  bool wait = true;                         // false: --no-wait, submit and return
  std::vector<std::string> task_flags;      // the batch flags each task repeats (defaults, retry)
};

// Refuses (failure(usage_error)) an output directory that is obviously local to this machine:
// under /tmp, /var/tmp, /dev/shm or /run, or on tmpfs/ramfs.
void check_shared_output_dir(const std::string& dir);

// The array's index list, compressed into ranges: {0,1,2,5,7,8} -> "0-2,5,7-8".
std::string array_ranges(const std::vector<std::size_t>& indexes);

// sbatch's resource options for one worker running `jobs` of these lines at once among `workers`:
// `jobs` times the largest run's CPUs, `jobs` times its memory plus the input document it holds,
// and ~128 MiB for the tool, the docker clients and the reapers; and time for its share of the
// lines (each its wall time plus the watchdog's grace and 10 s), one more line handed back from a
// lost worker, and the preflight and cleanup (in whole minutes).
std::vector<std::string> slurm_resources(const batch_plan& plan, const std::vector<std::size_t>& lines,
                                         unsigned jobs = 1, unsigned workers = 0);

batch_outcome run_slurm_batch(const batch_config& config, const batch_plan& plan, const slurm_options& options,
                              const batch_hooks& hooks);

// --collect: the summary of an earlier submission, waiting for its job if it is still queued.
batch_outcome collect_slurm_batch(const batch_config& config, const batch_plan& plan, const batch_hooks& hooks);

}  // namespace plb::batch
