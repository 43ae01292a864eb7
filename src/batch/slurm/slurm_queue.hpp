// SPDX-License-Identifier: Apache-2.0
// Waiting on a submitted job array: squeue says what is still queued or running, the tasks'
// records say what each line came to. Slurm's accounting may be off (sacct is not needed).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "batch/backend.hpp"

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

// Workers the cluster never starts are given up after this long (the reason must hold on every
// look meanwhile): the scheduler's first passes may give a passing reason before the lasting one.
inline constexpr std::chrono::seconds never_runs_patience{10};

// A job array that ends with lines open while its workers did not all refuse lost its workers (a
// lost node, a cancel, a time-out, SIGKILL): once each line they held is handed back, those lines go
// to a new array. Bounded, so that workers that die for a lasting reason (the tool missing on the
// nodes, a node that kills every job) end the batch rather than loop: two more arrays cover a lost
// node and a cancelled job.
inline constexpr unsigned max_resubmissions = 2;

struct resubmitter {
  unsigned remaining = max_resubmissions;
  // Submits a new job array for these lines and returns its ID; empty when the caller cannot
  // (--collect has no submission options): the lines then end not_run.
  std::function<std::string(const std::vector<std::size_t>& lines)> submit;
};

// Polls until the job has left the queue, rewriting the summary as records appear and handing the
// lines of workers that died back to the others (slurm_workers.hpp), or to a new array when none is
// left (resubmitter). Lines no worker recorded get host_refused (with a signed record) when every
// worker of the last array refused, else not_run. A stop request cancels the job (scancel: each task
// removes its sandbox), waits for its tasks to end, and marks the lines that recorded nothing as
// interrupted.
batch_outcome wait_for_job(std::string job, const output_dir& dir, const summary_header& header, const batch_plan& plan,
                           batch_start start, const batch_hooks& hooks, resubmitter again);

}  // namespace plb::batch
