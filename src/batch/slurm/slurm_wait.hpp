// SPDX-License-Identifier: Apache-2.0
// The submitter waiting on its job array: squeue says what is still queued or running
// (slurm_queue.hpp), the workers' records say what each line came to, and the summary is rewritten
// as they appear.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "batch/backend.hpp"

namespace plb::batch {

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

// The batch a submitter waits on: its plan, its output directory and its summary's header.
struct queued_batch {
  const batch_plan& plan;
  const output_dir& dir;
  summary_header header;
};

// Polls until the job has left the queue, rewriting the summary as records appear and handing the
// lines of workers that died back to the others (slurm_workers.hpp), or to a new array when none is
// left (resubmitter). Lines no worker recorded get host_refused (with a signed record) when every
// worker of the last array refused, else not_run. A stop request cancels the job (scancel: each task
// removes its sandbox), waits for its tasks to end, and marks the lines that recorded nothing as
// interrupted.
batch_outcome wait_for_job(std::string job, const queued_batch& batch, batch_start start, const batch_hooks& hooks,
                           resubmitter again);

}  // namespace plb::batch
