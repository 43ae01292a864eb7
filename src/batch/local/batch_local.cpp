// SPDX-License-Identifier: Apache-2.0
// The local backend: one preflight and one sweep for the batch, then a fixed pool of worker
// threads, each taking the next pending line and running it exactly as sandbox-score would. The
// calling thread only reports progress and rewrites the summary as lines finish.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "batch/backend.hpp"
#include "batch/batch_node.hpp"
#include "runner/for_batch.hpp"

namespace plb::batch {
namespace {

using clock_type = std::chrono::steady_clock;

// What the runs report to the thread that owns the outcomes: each line's start and end, queued
// until that thread takes them. The outcomes themselves are held once, by that thread alone.
class batch_state {
 public:
  explicit batch_state(std::size_t to_run) { progress_.total = to_run; }
  void started(std::size_t index) {
    const std::lock_guard lock(mutex_);
    line_outcome o;
    o.state = "running";
    changes_.emplace_back(index, std::move(o));
    ++progress_.running;
  }
  void finished(std::size_t index, line_outcome o) {
    {
      const std::lock_guard lock(mutex_);
      --progress_.running;
      ++progress_.done;
      progress_.failed += is_failure(o) ? 1 : 0;
      changes_.emplace_back(index, std::move(o));
    }
    changed_.notify_one();
  }
  // Waits up to `period` for a change; applies every change since the last call to `outcomes`
  // and returns true if there was one.
  bool wait(std::chrono::milliseconds period, batch_progress& progress, outcome_list& outcomes) {
    std::vector<std::pair<std::size_t, line_outcome>> changes;
    {
      std::unique_lock lock(mutex_);
      changed_.wait_for(lock, period, [&] { return first_ || !changes_.empty(); });
      progress = progress_;
      changes.swap(changes_);
    }
    for (const auto& [index, o] : changes) {
      if (o.state == "running")
        outcomes.set_state(index, o.state);
      else
        outcomes.set(index, o);
    }
    const bool changed = first_ || !changes.empty();
    first_ = false;
    return changed;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::pair<std::size_t, line_outcome>> changes_;
  batch_progress progress_;
  bool first_ = true;
};

// As many runs at once as the host's CPUs hold the largest run's CPU limit (at least one).
unsigned default_jobs(const batch_plan& plan) {
  std::uint64_t millicores = 1000;
  for (std::size_t i = 0; i < plan.size(); ++i) millicores = std::max(millicores, plan.limits(i).cpu_millicores);
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  return std::max<unsigned>(1, static_cast<unsigned>(cpus * 1000ull / millicores));
}

// Preflight and sweep once, then `jobs` runs at a time.
batch_outcome run_local_batch(const batch_config& config, const batch_plan& plan, unsigned jobs,
                              const batch_hooks& hooks, const worker_report& origin) {
  const cancellation cancel(hooks.stop);
  const output_dir dir = open_output_dir(config.output_dir, true);
  batch_start start = start_batch(config, plan, dir);
  const auto batch_began = clock_type::now();
  summary_header header{
      config.manifest_path, plan.manifest_sha256, config.output_dir, "local", utc_timestamp(), {}, {}, {}};
  const auto hosts = preflight_once(plan, start.to_run, cancel);  // a refused host leaves no summary behind
  write_summary(dir, header, plan, start.outcomes);

  batch_state state(start.to_run.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    while (!cancel.signal()) {
      const std::size_t k = next.fetch_add(1);
      if (k >= start.to_run.size()) return;
      const batch_item item = plan.item(start.to_run[k]);
      state.started(item.index);
      const run_hooks run{cancel, {}, &hosts.at(item.request.runtime_image)};
      line_outcome o = run_line(item, run, dir, start.data_digest(plan, item.index), origin);
      if (hooks.on_finish && o.state != "interrupted") hooks.on_finish(item, o);
      state.finished(item.index, std::move(o));
    }
  };
  const auto began = clock_type::now();
  std::vector<std::thread> pool;
  const std::size_t threads = std::min<std::size_t>(jobs == 0 ? 1 : jobs, start.to_run.size());
  for (std::size_t i = 0; i < threads; ++i) pool.emplace_back(worker);
  batch_progress progress;
  while (true) {
    const bool all_done = next.load() >= start.to_run.size() || cancel.signal();
    if (state.wait(std::chrono::milliseconds(200), progress, start.outcomes))
      write_summary(dir, header, plan, start.outcomes);
    progress.elapsed_seconds = std::chrono::duration<double>(clock_type::now() - began).count();
    if (hooks.on_progress) hooks.on_progress(progress);
    if (all_done && progress.running == 0) break;
  }
  for (auto& t : pool) t.join();
  (void)state.wait(std::chrono::milliseconds(0), progress, start.outcomes);  // the last lines' ends
  batch_outcome result{std::move(start.outcomes), cancel.signal()};
  header.finished_at = utc_timestamp();
  header.wall_seconds = std::chrono::duration<double>(clock_type::now() - batch_began).count();
  write_summary(dir, header, plan, result.outcomes);
  return result;
}

class local_backend_type final : public backend {
 public:
  std::string_view name() const noexcept override { return "local"; }
  bool queued() const noexcept override { return false; }
  const backend_help& help() const noexcept override {
    static const backend_help text{.jobs = "default CPUs / per-run CPU limit"};
    return text;
  }
  // Whatever scheduler may have started this process, the local backend names itself.
  worker_report identity() const override { return local_worker(); }
  batch_outcome run(const batch_config& config, const batch_plan& plan, const backend_options& options,
                    const batch_hooks& hooks) const override {
    return run_local_batch(config, plan, options.jobs ? options.jobs : default_jobs(plan), hooks, identity());
  }
};

}  // namespace

const backend& local_backend() {
  static const local_backend_type instance;
  return instance;
}

}  // namespace plb::batch
