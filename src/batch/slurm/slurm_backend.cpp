// SPDX-License-Identifier: Apache-2.0
// The Slurm backend as the batch layer sees it (backend.hpp): its row's name, its flags' help, how
// a worker task names itself from Slurm's variables, and the options it passes on to
// run_slurm_batch (batch_slurm.hpp). The only reader of SLURM_* in the tool.
#include <cstdlib>

#include "batch/batch_claims.hpp"
#include "batch/batch_node.hpp"
#include "batch/slurm/batch_slurm.hpp"

namespace plb::batch {
namespace {

std::string variable(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string safe_or_unknown(const std::string& s) { return is_safe_name(s) ? s : "unknown"; }

class slurm_backend_type final : public backend {
 public:
  std::string_view name() const noexcept override { return "slurm"; }
  bool queued() const noexcept override { return true; }
  const backend_help& help() const noexcept override {
    static const backend_help text{
        .jobs = "per worker, default 1",
        .workers =
            "worker tasks to submit (default: what the lines and --jobs need, within MaxArraySize and the "
            "partition's CPUs)",
        .no_wait = "submit the job array and return; --collect writes the summary later",
        .collect = "wait for an earlier submission to this --output-dir and write its summary",
        .partition = "sbatch --partition",
        .account = "sbatch --account",
        .scheduler_option = "one more sbatch option, e.g. --sbatch-option=--qos=eval",
    };
    return text;
  }
  // A task of the job array is worker "<job>_<task>" on node $SLURMD_NODENAME; outside a task, what
  // the local backend says.
  worker_report identity() const override {
    worker_report w = local_worker();
    const std::string job = variable("SLURM_ARRAY_JOB_ID"), task = variable("SLURM_ARRAY_TASK_ID");
    if (const std::string node = variable("SLURMD_NODENAME"); !node.empty()) w.node = safe_or_unknown(node);
    if (!job.empty() && !task.empty()) w.worker = safe_or_unknown(job + "_" + task);
    return w;
  }
  std::string submitted_text(const std::string& job) const override { return "submitted Slurm job " + job; }
  batch_outcome run(const batch_config& config, const batch_plan& plan, const backend_options& options,
                    const batch_hooks& hooks) const override {
    slurm_options slurm;
    slurm.partition = options.partition;
    slurm.account = options.account;
    slurm.sbatch_options = options.scheduler_options;
    slurm.jobs = options.jobs ? options.jobs : 1;
    slurm.workers = options.workers;
    slurm.wait = options.wait;
    slurm.task_flags = options.task_flags;
    slurm.task_flags.insert(slurm.task_flags.end(), {"--manifest-sha256", plan.manifest_sha256});
    return run_slurm_batch(config, plan, slurm, hooks);
  }
  batch_outcome collect(const batch_config& config, const batch_plan& plan, const batch_hooks& hooks) const override {
    return collect_slurm_batch(config, plan, hooks);
  }
};

}  // namespace

const backend& slurm_backend() {
  static const slurm_backend_type instance;
  return instance;
}

}  // namespace plb::batch
