// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/slurm_wait.hpp"

#include <ctime>
#include <optional>
#include <thread>

#include "batch/batch_claims.hpp"
#include "batch/batch_node.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_resume.hpp"
#include "batch/slurm/slurm_queue.hpp"
#include "batch/slurm/slurm_workers.hpp"
#include "support/command.hpp"

namespace plb::batch {
namespace {

using clock_type = std::chrono::steady_clock;

constexpr auto look_period = std::chrono::milliseconds(500);  // squeue and a stat per open line, twice a second
constexpr int linger_looks = 40;  // every line recorded: workers end within ~1 s, or are cancelled after this

double seconds_since(clock_type::time_point began) {
  return std::chrono::duration<double>(clock_type::now() - began).count();
}

// One wait on a job array, and on the arrays that replace it, up to the summary's last rewrite.
class job_wait {
 public:
  job_wait(std::string job, const queued_batch& batch, batch_start start, const batch_hooks& hooks, resubmitter again)
      : job_(std::move(job)),
        plan_(batch.plan),
        dir_(batch.dir),
        header_(batch.header),
        start_(std::move(start)),
        hooks_(hooks),
        again_(std::move(again)),
        stop_(hooks.stop),
        claims_(batch.dir),
        open_(plan_.size(), false) {
    for (const std::size_t i : start_.to_run) open_[i] = !is_verdict(std::string(start_.outcomes.state(i)));
  }

  batch_outcome run() {
    while (look()) std::this_thread::sleep_for(look_period);
    (void)gather_records();  // records written as the job ended
    if (!stopped_by_) stopped_by_ = stop_.signal();
    finish_open_lines();
    header_.workers = claims_.reports();
    header_.finished_at = utc_timestamp();
    header_.wall_seconds = seconds_since(began_);
    write_summary(dir_, header_, plan_, start_.outcomes);
    return {std::move(start_.outcomes), stopped_by_};
  }

 private:
  struct gathered {
    std::size_t still_open = 0;
    bool changed = false;
  };

  // One look at the queue and the records; false once the wait is over.
  bool look() {
    const queue_state q = query_queue(job_);
    const gathered g = gather_records();
    if (!cancelled_)
      (void)hand_back_lost_claims(claims_, plan_, q.alive, static_cast<std::int64_t>(std::time(nullptr)));
    if (g.changed) {
      header_.workers = claims_.reports();
      write_summary(dir_, header_, plan_, start_.outcomes);
    }
    show_progress(g.still_open, q.running);
    if (!q.queued && !replace_ended_job(g.still_open)) return false;
    cancel_when_due(q, g.still_open);
    return true;
  }

  // Lines that ran to a record since the last look.
  gathered gather_records() {
    gathered g;
    for (const std::size_t i : start_.to_run) {
      if (!open_[i]) continue;
      const auto record = read_record(dir_, std::string(plan_.id(i)));
      if (record && !*record) {  // none yet
        ++g.still_open;
        continue;
      }
      take_record(i, record ? (*record)->outcome : line_outcome{});
      g.changed = true;
    }
    return g;
  }

  // The task's own words (`recorded`, from its trusted record), once its outputs are checked against
  // the line like any earlier run's; a refused record is the conflict decide_resume names.
  void take_record(std::size_t i, const line_outcome& recorded) {
    const batch_item item = plan_.item(i);
    const auto d =
        decide_resume(item, dir_, retry_policy::none, request_fingerprint(item, start_.data_digest(plan_, i)));
    line_outcome o = d.action == resume_action::conflict ? d.outcome : recorded;
    if (d.action == resume_action::run) {  // a success record whose outputs are missing
      o.state = "not_run";
      o.message = "the task recorded success but its outputs are missing";
    }
    start_.outcomes.set(i, o);
    open_[i] = false;
    if (hooks_.on_finish) hooks_.on_finish(item, o);
  }

  void show_progress(std::size_t still_open, std::size_t running) const {
    if (!hooks_.on_progress) return;
    batch_progress p{start_.to_run.size(), start_.to_run.size() - still_open, running, 0, 0};
    for (const std::size_t i : start_.to_run) {
      const std::string state(start_.outcomes.state(i));
      p.failed += is_verdict(state) && state != "success" ? 1 : 0;
    }
    p.elapsed_seconds = seconds_since(began_);
    hooks_.on_progress(p);
  }

  // The job has left the queue. False ends the wait; true waits on, for the claims its lost workers
  // held to be handed back, or on the new array submitted for their lines.
  bool replace_ended_job(std::size_t still_open) {
    if (cancelled_ || stop_.signal() || still_open == 0 || again_.remaining == 0 || !again_.submit) return false;
    const auto lines = lines_left_by_lost_workers();
    if (lines && lines->empty()) return false;
    if (lines) {
      job_ = again_.submit(*lines);
      --again_.remaining;
      lingering_ = 0;
      if (hooks_.on_submitted) hooks_.on_submitted(job_);
    }
    return true;
  }

  // What an array that left the queue with lines open leaves to a new one: nullopt (wait) while one
  // of those lines is still claimed (its sandbox may run until its deadline, and the claim is handed
  // back after it), nothing when every worker of the array refused (its lines get host_refused),
  // else every open line.
  std::optional<std::vector<std::size_t>> lines_left_by_lost_workers() const {
    std::vector<std::size_t> lines;
    for (const std::size_t i : start_.to_run) {
      if (!open_[i]) continue;
      if (claims_.exists(std::string(plan_.id(i)))) return std::nullopt;
      lines.push_back(i);
    }
    if (every_worker_refused(workers_of_job(claims_.reports(), job_))) lines.clear();
    return lines;
  }

  // The job is cancelled once its workers linger after the last record, once the cluster will never
  // start them, or on a stop request.
  void cancel_when_due(const queue_state& q, std::size_t still_open) {
    if (still_open == 0 && ++lingering_ > linger_looks && !cancelled_) cancel_job();
    never_since_ = q.never_runs.empty() ? std::nullopt : never_since_ ? never_since_ : clock_type::now();
    if (never_since_ && !cancelled_ && clock_type::now() - *never_since_ >= never_runs_patience) {
      never_runs_ = q.never_runs;
      cancel_job();
    }
    if (stop_.signal() && !cancelled_) {
      stopped_by_ = stop_.signal();
      cancel_job();
    }
  }

  // scancel, once: each task removes its sandbox on its way out. The wait goes on until they end.
  void cancel_job() {
    cancelled_ = true;
    (void)run_command(scancel_path, {job_}, std::chrono::seconds(30));
  }

  // The lines no record came for once the job has ended.
  void finish_open_lines() {
    const std::vector<worker_report> workers = workers_of_job(claims_.reports(), job_);
    for (const std::size_t i : start_.to_run) {
      if (!open_[i]) continue;
      line_outcome o = start_.outcomes[i];
      if (stopped_by_) {
        o.state = "interrupted";
        o.message = "the batch was stopped; Slurm job " + job_;
        o.message += " was cancelled before this line recorded a verdict";
        start_.outcomes.set(i, o);
        continue;
      }
      const batch_item item = plan_.item(i);
      const auto claim = claims_.read(item.id);
      o = never_runs_.empty() || claim ? unrun_line(job_, workers, claim) : unscheduled_line(job_, never_runs_);
      if (is_verdict(o.state))  // signed like a task's, so that resume keeps it and --retry-failed re-runs it
        write_record(dir_, item, o, request_fingerprint(item, start_.data_digest(plan_, i)), "");
      start_.outcomes.set(i, o);
    }
  }

  std::string job_;
  const batch_plan& plan_;
  const output_dir& dir_;
  summary_header header_;
  batch_start start_;
  const batch_hooks& hooks_;
  resubmitter again_;
  const cancellation stop_;
  const claim_dir claims_;
  std::vector<bool> open_;  // to_run's lines with no verdict yet
  const clock_type::time_point began_ = clock_type::now();
  int stopped_by_ = 0;
  bool cancelled_ = false;
  int lingering_ = 0;
  std::string never_runs_;  // why Slurm will never start this job's workers, once given up on
  std::optional<clock_type::time_point> never_since_;
};

}  // namespace

batch_outcome wait_for_job(std::string job, const queued_batch& batch, batch_start start, const batch_hooks& hooks,
                           resubmitter again) {
  return job_wait(std::move(job), batch, std::move(start), hooks, std::move(again)).run();
}

}  // namespace plb::batch
