// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/slurm_queue.hpp"

#include <chrono>
#include <ctime>
#include <optional>
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

// What an array that left the queue with lines open leaves to a new one: nullopt (wait) while one of
// those lines is still claimed (its sandbox may run until its deadline, and the claim is handed back
// after it), nothing when every worker of the array refused (its lines get host_refused), else
// every open line.
std::optional<std::vector<std::size_t>> lines_left_by_lost_workers(const std::string& job, const claim_dir& claims,
                                                                   const batch_plan& plan, const batch_start& start,
                                                                   const std::vector<bool>& open) {
  std::vector<std::size_t> lines;
  for (const std::size_t i : start.to_run) {
    if (!open[i]) continue;
    if (claims.exists(std::string(plan.id(i)))) return std::nullopt;
    lines.push_back(i);
  }
  if (every_worker_refused(workers_of_job(claims.reports(), job))) lines.clear();
  return lines;
}

void finish_open_lines(const std::string& job, const output_dir& dir, const claim_dir& claims, const batch_plan& plan,
                       batch_start& start, const std::vector<bool>& open, int stopped_by,
                       const std::string& never_runs) {
  const std::vector<worker_report> workers = workers_of_job(claims.reports(), job);
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
    const auto claim = claims.read(item.id);
    o = never_runs.empty() || claim ? unrun_line(job, workers, claim) : unscheduled_line(job, never_runs);
    if (is_verdict(o.state))  // signed like a task's, so that resume keeps it and --retry-failed re-runs it
      write_record(dir, item, o, request_fingerprint(item, start.data_digest(plan, i)), "");
    start.outcomes.set(i, o);
  }
}

}  // namespace

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

batch_outcome wait_for_job(std::string job, const output_dir& dir, const summary_header& header, const batch_plan& plan,
                           batch_start start, const batch_hooks& hooks, resubmitter again) {
  const cancellation cancel(hooks.stop);
  std::vector<bool> open(plan.size(), false);
  for (const std::size_t i : start.to_run) open[i] = !is_verdict(std::string(start.outcomes.state(i)));
  const claim_dir claims(dir);
  summary_header with_workers = header;
  const auto began = clock_type::now();
  int stopped_by = 0;
  bool cancelled = false;
  int lingering = 0;
  std::string never_runs;  // why Slurm will never start this job's workers, once given up on
  std::optional<clock_type::time_point> never_since;
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
    if (!q.queued) {
      if (cancelled || cancel.signal() || still_open == 0 || again.remaining == 0 || !again.submit) break;
      const auto lines = lines_left_by_lost_workers(job, claims, plan, start, open);
      if (lines && lines->empty()) break;
      if (lines) {
        job = again.submit(*lines);
        --again.remaining;
        lingering = 0;
        if (hooks.on_submitted) hooks.on_submitted(job);
      }
    }
    if (still_open == 0 && ++lingering > 40 && !cancelled) {  // every line recorded: workers end within ~1 s
      cancelled = true;
      (void)run_command(scancel_path, {job}, std::chrono::seconds(30));
    }
    never_since = q.never_runs.empty() ? std::nullopt : never_since ? never_since : clock_type::now();
    if (never_since && !cancelled && clock_type::now() - *never_since >= never_runs_patience) {
      never_runs = q.never_runs;
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
  finish_open_lines(job, dir, claims, plan, start, open, stopped_by, never_runs);
  with_workers.workers = claims.reports();
  with_workers.finished_at = utc_timestamp();
  with_workers.wall_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
  write_summary(dir, with_workers, plan, start.outcomes);
  return {std::move(start.outcomes), stopped_by};
}

}  // namespace plb::batch
