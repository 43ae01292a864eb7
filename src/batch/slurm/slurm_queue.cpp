// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/slurm_queue.hpp"

#include <chrono>
#include <ctime>
#include <sstream>
#include <thread>

#include "batch/batch_resume.hpp"
#include "support/command.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"
#include "batch/batch_node.hpp"
#include "batch/batch_records.hpp"
#include "batch/slurm/slurm_workers.hpp"

namespace plb::batch {
namespace {

using clock_type = std::chrono::steady_clock;

// Lines that ran to a record since the last look; returns how many are still open.
std::size_t gather_records(const batch_plan& plan, const output_dir& dir, batch_start& start, std::vector<bool>& open,
                           const batch_hooks& hooks, bool& changed) {
  std::size_t still_open = 0;
  for (const std::size_t i : start.to_run) {
    if (!open[i]) continue;
    // The task's own words, once its outputs are checked against the line like any earlier run's.
    const record_read record = read_record(dir, std::string(plan.id(i)));
    if (record.state == record_state::absent) {
      ++still_open;
      continue;
    }
    const batch_item item = plan.item(i);
    const auto d = decide_resume(item, dir, retry_policy::none, request_fingerprint(item, start.data_digest(plan, i)));
    line_outcome o = d.action == resume_action::conflict ? d.outcome : record.record.outcome;
    if (d.action == resume_action::run) {  // a success record whose outputs are missing
      o.state = "not_run";
      o.message = "the task recorded success but its outputs are missing";
    }
    start.outcomes.set(i, o);
    open[i] = false;
    changed = true;
    if (hooks.on_finish) hooks.on_finish(item, o);
  }
  return still_open;
}

void finish_open_lines(const std::string& job, const output_dir& dir, const claim_dir& claims, const batch_plan& plan,
                       batch_start& start, const std::vector<bool>& open, int stopped_by) {
  const std::vector<worker_report> workers = claims.reports();
  for (const std::size_t i : start.to_run) {
    if (!open[i]) continue;
    line_outcome o = start.outcomes[i];
    if (stopped_by) {
      o.state = "interrupted";
      o.message = "the batch was stopped; Slurm job " + job;
      o.message += " was cancelled before this line recorded a verdict";
      start.outcomes.set(i, o);
      continue;
    }
    const batch_item item = plan.item(i);
    o = unrun_line(job, workers, claims.read(item.id));
    if (is_verdict(o.state))  // signed like a task's, so that resume keeps it and --retry-failed re-runs it
      write_record(dir, item, o, request_fingerprint(item, start.data_digest(plan, i)), "");
    start.outcomes.set(i, o);
  }
}

}  // namespace

queue_state query_queue(const std::string& job) {
  const auto out =
      run_command(squeue_path, {"--noheader", "--array", "--jobs=" + job, "--format=%i %T"}, std::chrono::seconds(30));
  queue_state q;
  if (out.exit_code != 0) {
    // A job that left the controller's memory is "Invalid job id": it is no longer queued.
    if (out.err.find("Invalid job id") != std::string::npos) return q;
    fail(sandbox::verdict::host_refused, "squeue failed: " + one_line(out.err));
  }
  std::istringstream lines(out.out);
  std::string id, state;
  while (lines >> id >> state) {
    const bool running = state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING";
    if (!running && state != "PENDING" && state != "SUSPENDED" && state != "REQUEUED") continue;  // ended
    q.queued = true;
    q.running += running ? 1 : 0;
    q.alive.insert(id);
  }
  return q;
}

batch_outcome wait_for_job(const std::string& job, const output_dir& dir, const summary_header& header,
                           const batch_plan& plan, batch_start start, const batch_hooks& hooks) {
  const cancellation cancel(hooks.stop);
  std::vector<bool> open(plan.size(), false);
  for (const std::size_t i : start.to_run) open[i] = !is_verdict(std::string(start.outcomes.state(i)));
  const claim_dir claims(dir);
  summary_header with_workers = header;
  const auto began = clock_type::now();
  int stopped_by = 0;
  bool cancelled = false;
  int lingering = 0;
  while (true) {
    bool changed = false;
    const queue_state q = query_queue(job);
    const std::size_t still_open = gather_records(plan, dir, start, open, hooks, changed);
    if (!cancelled) (void)hand_back_lost_claims(claims, plan, q.alive, static_cast<std::int64_t>(std::time(nullptr)));
    if (changed) {
      with_workers.workers = claims.reports();
      write_summary(dir, with_workers, plan, start.outcomes);
    }
    if (hooks.on_progress) {
      batch_progress p{start.to_run.size(), start.to_run.size() - still_open, q.running, 0, 0};
      for (const std::size_t i : start.to_run) {
        const std::string state(start.outcomes.state(i));
        p.failed += is_verdict(state) && state != "success" ? 1 : 0;
      }
      p.elapsed_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
      hooks.on_progress(p);
    }
    if (!q.queued) break;
    if (still_open == 0 && ++lingering > 40 && !cancelled) {  // every line recorded: workers end within ~1 s
      cancelled = true;
      (void)run_command(scancel_path, {job}, std::chrono::seconds(30));
    }
    if (cancel.signal() && !cancelled) {
      stopped_by = cancel.signal();
      cancelled = true;
      (void)run_command(scancel_path, {job}, std::chrono::seconds(30));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // squeue and a stat per open line, twice a second
  }
  bool changed = false;
  (void)gather_records(plan, dir, start, open, hooks, changed);  // records written as the job ended
  if (!stopped_by) stopped_by = cancel.signal();
  finish_open_lines(job, dir, claims, plan, start, open, stopped_by);
  with_workers.workers = claims.reports();
  with_workers.finished_at = utc_timestamp();
  with_workers.wall_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
  write_summary(dir, with_workers, plan, start.outcomes);
  return {std::move(start.outcomes), stopped_by};
}

}  // namespace plb::batch
