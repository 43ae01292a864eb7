// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox batch`: the flags to a plan, the plan to its backend, and what the operator sees: one
// progress line on a terminal, one line per finished run with --verbose, and a closing line.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "batch/backend.hpp"
#include "batch/batch_worker.hpp"
#include "batch_flags.hpp"
#include "cli_signals.hpp"
#include "command.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// "plb-sandbox batch: 12/40 done, 2 running, 1 failed, 0:23 elapsed, ETA 0:52", rewritten in place.
class progress_line {
 public:
  explicit progress_line(bool enabled) : enabled_(enabled) {}
  ~progress_line() { clear(); }
  void show(const batch_progress& p) {
    if (!enabled_) return;
    std::string eta = "ETA -";
    if (p.done > 0 && p.done < p.total)
      eta =
          "ETA " + clock_text(p.elapsed_seconds / static_cast<double>(p.done) * static_cast<double>(p.total - p.done));
    const std::string line = "\rplb-sandbox batch: " + std::to_string(p.done) + "/" + std::to_string(p.total) +
                             " done, " + std::to_string(p.running) + " running, " + std::to_string(p.failed) +
                             " failed, " + clock_text(p.elapsed_seconds) + " elapsed, " + eta + "\033[K";
    const std::lock_guard lock(mutex_);
    written_ |= ::write(STDERR_FILENO, line.data(), line.size()) > 0;
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    if (written_) (void)!::write(STDERR_FILENO, "\r\033[K", 4);
    written_ = false;
  }

 private:
  bool enabled_;
  bool written_ = false;
  std::mutex mutex_;
};

// What the closing lines say, counted before the outcomes are let go.
struct outcome_counts {
  std::size_t lines = 0, verdicts = 0;
  std::string counts;
  int stopped_by = 0;
};

outcome_counts count_outcome(const batch_outcome& result) {
  outcome_counts c;
  c.lines = result.outcomes.size();
  c.stopped_by = result.stopped_by;
  for (const auto& [state, n] : count_states(result.outcomes)) {
    c.counts += (c.counts.empty() ? "" : ", ") + std::to_string(n) + " " + state;
    c.verdicts += is_verdict(state) ? n : 0;
  }
  return c;
}

int report_outcome(const batch_config& config, const outcome_counts& c) {
  std::cout << "batch: " << c.lines << " lines: " << c.counts << "\nsummary: " << config.output_dir
            << "/batch-summary.csv" << std::endl;
  if (c.stopped_by) {
    std::cerr << "plb-sandbox: batch stopped by " << signal_name(c.stopped_by)
              << "; running sandboxes were removed and the summary marks their lines interrupted" << std::endl;
    die_by(c.stopped_by);
  }
  if (c.verdicts == c.lines) return 0;
  std::cerr << "plb-sandbox: " << c.lines - c.verdicts << " line(s) could not be run; the summary says why for each"
            << std::endl;
  return batch_incomplete_exit_code;
}

// Returns the exit code: 0 when every line reached a verdict (the summary holds them),
// batch_incomplete_exit_code when some could not run; throws failure when the batch cannot start.
int run_batch(const batch_flags& flags, const sandbox::stop_source& stop) {
  const batch_config config = batch_config_from(flags);
  const batch::backend* backend = batch::find_backend(flags.backend);
  if (!backend) fail(sandbox::verdict::usage_error, "--backend " + flags.backend + ": no such backend");
  batch_plan plan = plan_batch(config);
  if (flags.worker) {
    // A worker must run the lines that were submitted: an index into an edited manifest could name
    // another submission's line.
    if (!flags.manifest_sha256.empty() && flags.manifest_sha256 != plan.manifest_sha256)
      fail(sandbox::verdict::input_refused,
           "--manifest " + config.manifest_path + ": changed since the job was submitted (SHA-256 " +
               plan.manifest_sha256 + ", submitted " + flags.manifest_sha256 + "); no line was run");
    return batch::run_batch_worker(config, plan, backend->identity(), flags.jobs ? flags.jobs : 1, stop);
  }

  progress_line progress(::isatty(STDERR_FILENO) == 1);
  std::mutex verbose_mutex;
  batch_hooks hooks;
  hooks.stop = &stop;
  hooks.on_progress = [&](const batch_progress& p) { progress.show(p); };
  if (flags.verbose && ::isatty(STDERR_FILENO) != 1)
    hooks.on_finish = [&](const batch_item& item, const line_outcome& o) {
      const std::lock_guard lock(verbose_mutex);
      std::cerr << "plb-sandbox: " << item.id << ": " << o.state << " (exit " << o.exit_code
                << "): " << one_line(o.message) << std::endl;
    };
  hooks.on_submitted = [backend](const std::string& job) {
    std::cerr << "plb-sandbox: " << backend->submitted_text(job) << std::endl;
  };

  batch::backend_options options;
  options.jobs = flags.jobs;
  options.workers = flags.workers;
  options.wait = !flags.no_wait;
  options.partition = flags.partition;
  options.account = flags.account;
  options.scheduler_options = flags.sbatch_options;
  options.task_flags = task_flags_from(config);
  batch_outcome result =
      flags.collect ? backend->collect(config, plan, hooks) : backend->run(config, plan, options, hooks);
  progress.clear();
  if (flags.no_wait) {
    std::cout << "submitted; collect the summary with the same command and --collect instead of --no-wait" << std::endl;
    return 0;
  }
  const outcome_counts counts = count_outcome(result);
  // The report reads the summary: the plan and the outcomes (tens of MiB for 100,000 lines) go first.
  finish_batch(flags.finish, config, plan, result.outcomes, result.stopped_by != 0, stop, [&] {
    plan = batch_plan();
    result.outcomes = batch::outcome_list();
  });
  return report_outcome(config, counts);
}

class batch_command final : public command {
 public:
  void add_flags(CLI::App& app) override { add_batch_flags(app, flags_); }
  int run(const run_context& context) override { return run_batch(flags_, context.stop); }

 private:
  batch_flags flags_;
};

}  // namespace

std::unique_ptr<command> make_batch_command() { return std::make_unique<batch_command>(); }

}  // namespace plb::cli
