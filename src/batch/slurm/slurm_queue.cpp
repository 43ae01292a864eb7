#include "batch/slurm/slurm_queue.hpp"

#include <chrono>
#include <sstream>
#include <thread>

#include "batch/batch_resume.hpp"
#include "support/command.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"
#include "batch/batch_node.hpp"

namespace plb::batch {
namespace {

using clock_type = std::chrono::steady_clock;

// Lines that ran to a record since the last look; returns how many are still open.
std::size_t gather_records(const batch_plan& plan, const output_dir& dir, batch_start& start, std::vector<bool>& open,
                           const batch_hooks& hooks, bool& changed) {
  std::size_t still_open = 0;
  for (const std::size_t i : start.to_run) {
    if (!open[i]) continue;
    const auto& item = plan.items[i];
    // The task's own words, once its outputs are checked against the line like any earlier run's.
    const record_read record = read_record(dir, item.id);
    if (record.state == record_state::absent) {
      ++still_open;
      continue;
    }
    const auto d = decide_resume(item, dir, retry_policy::none, request_fingerprint(item, start.data_sha256[i]));
    start.outcomes[i] = d.action == resume_action::conflict ? d.outcome : record.record.outcome;
    if (d.action == resume_action::run) {  // a success record whose outputs are missing
      start.outcomes[i].state = "not_run";
      start.outcomes[i].message = "the task recorded success but its outputs are missing";
    }
    open[i] = false;
    changed = true;
    if (hooks.on_finish) hooks.on_finish(item, start.outcomes[i]);
  }
  return still_open;
}

void finish_open_lines(const std::string& job, const batch_plan& plan, batch_start& start,
                       const std::vector<bool>& open, int stopped_by) {
  for (const std::size_t i : start.to_run) {
    if (!open[i]) continue;
    line_outcome& o = start.outcomes[i];
    o.state = stopped_by ? "interrupted" : "not_run";
    const std::string task = job + "_" + std::to_string(plan.items[i].index);
    if (stopped_by) {
      o.message = "the batch was stopped; Slurm job " + job;
      o.message += " was cancelled before this line recorded a verdict";
    } else {
      o.message = "Slurm task " + task;
      o.message += " ended without recording a verdict (see slurm/" + task + ".log)";
    }
  }
}

}  // namespace

queue_state query_queue(const std::string& job) {
  const auto out =
      run_command(squeue_path, {"--noheader", "--jobs=" + job, "--format=%i %T"}, std::chrono::seconds(30));
  queue_state q;
  if (out.exit_code != 0) {
    // A job that left the controller's memory is "Invalid job id": it is no longer queued.
    if (out.err.find("Invalid job id") != std::string::npos) return q;
    fail(sandbox::verdict::host_refused, "squeue failed: " + one_line(out.err));
  }
  std::istringstream lines(out.out);
  std::string id, state;
  while (lines >> id >> state) {
    q.queued = true;
    q.running += state == "RUNNING" || state == "COMPLETING" ? 1 : 0;
  }
  return q;
}

batch_outcome wait_for_job(const std::string& job, const output_dir& dir, const summary_header& header,
                           const batch_plan& plan, batch_start start, const batch_hooks& hooks) {
  const cancellation cancel(hooks.stop);
  std::vector<bool> open(plan.items.size(), false);
  for (const std::size_t i : start.to_run) open[i] = !is_verdict(start.outcomes[i].state);
  const auto began = clock_type::now();
  int stopped_by = 0;
  bool cancelled = false;
  while (true) {
    bool changed = false;
    const queue_state q = query_queue(job);
    const std::size_t still_open = gather_records(plan, dir, start, open, hooks, changed);
    if (changed) write_summary(dir, header, plan.items, start.outcomes);
    if (hooks.on_progress) {
      batch_progress p{start.to_run.size(), start.to_run.size() - still_open, q.running, 0, 0};
      for (const std::size_t i : start.to_run) p.failed += is_failure(start.outcomes[i]) ? 1 : 0;
      p.elapsed_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
      hooks.on_progress(p);
    }
    if (!q.queued || still_open == 0) break;
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
  finish_open_lines(job, plan, start, open, stopped_by);
  summary_header ended = header;
  ended.finished_at = utc_timestamp();
  ended.wall_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
  write_summary(dir, ended, plan.items, start.outcomes);
  return {std::move(start.outcomes), stopped_by};
}

}  // namespace plb::batch
