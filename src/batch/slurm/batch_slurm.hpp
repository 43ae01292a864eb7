// The Slurm engine: the lines that need a run become one job array (sbatch --array=<lines>%J),
// each task runs `plb-sandbox batch ... --index I` on its node (its own preflight: a node that is
// not a good gVisor host records host_refused for its line), and the submitter waits, polling
// squeue and the tasks' records, and writes the same summary as the local engine.
#pragma once

#include <string>
#include <vector>

#include "batch/backend.hpp"

namespace plb::batch {

struct slurm_options {
  std::string partition, account;
  std::vector<std::string> sbatch_options;  // passed through as given, before the script
  unsigned throttle = 0;                    // %J: tasks at once (0: all)
  bool wait = true;                         // false: --no-wait, submit and return
  std::vector<std::string> task_flags;      // the batch flags each task repeats (defaults, retry)
};

// Refuses (failure(usage_error)) an output directory that is obviously local to this machine:
// under /tmp, /var/tmp, /dev/shm or /run, or on tmpfs/ramfs.
void check_shared_output_dir(const std::string& dir);

// The array's index list, compressed into ranges: {0,1,2,5,7,8} -> "0-2,5,7-8".
std::string array_ranges(const std::vector<std::size_t>& indexes);

// sbatch's resource options for these lines: the largest run's CPUs, its memory plus the tool's
// own (the input document it holds, and ~128 MiB for the tool, the docker client and the reaper),
// and its wall time plus the watchdog's grace and the preflight and cleanup (in whole minutes).
std::vector<std::string> slurm_resources(const batch_plan& plan, const std::vector<std::size_t>& lines);

batch_outcome run_slurm_batch(const batch_config& config, const batch_plan& plan, const slurm_options& options,
                              const batch_hooks& hooks);

// --collect: the summary of an earlier submission, waiting for its job if it is still queued.
batch_outcome collect_slurm_batch(const batch_config& config, const batch_plan& plan, const batch_hooks& hooks);

}  // namespace plb::batch
