// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/batch_slurm.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "batch/batch_claims.hpp"
#include "batch/batch_node.hpp"
#include "batch/batch_resume.hpp"
#include "batch/batch_worker.hpp"
#include "batch/slurm/slurm_queue.hpp"
#include "batch/slurm/slurm_wait.hpp"
#include "batch/slurm/slurm_workers.hpp"
#include "support/command.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

// Before the tool and the docker client are counted: the watchdog's grace after the wall limit,
// and what a task spends on its preflight, the image checks and the container's removal.
constexpr std::uint64_t grace_seconds = 5;
constexpr std::uint64_t task_overhead_seconds = 120;
constexpr std::uint64_t tool_overhead_mib = 128;
constexpr std::uint64_t line_overhead_seconds = 10;  // a line's own start, inspection and removal

// Appends its pieces: "literal" + std::string temporaries trip GCC 12's -Wrestrict false positive
// (PR 105651) in release builds.
std::string text_of(std::initializer_list<std::string_view> pieces) {
  std::string out;
  for (const auto p : pieces) out.append(p);
  return out;
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string self_path() {
  std::string buf(PATH_MAX, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size());
  if (n <= 0) fail(verdict::internal_error, "cannot find this program's path in /proc/self/exe");
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

// The job script: every task runs this tool as a worker of this backend (--backend slurm, so that it
// names itself from Slurm's variables); nothing else of the submitter's environment than what
// sbatch exports.
std::string job_script(const batch_config& config, const slurm_options& options) {
  std::string s = "#!/bin/sh\n# Written by plb-sandbox batch: each array task is a worker pulling lines.\nexec";
  for (const std::string& arg : std::vector<std::string>{self_path(), "batch", "--manifest", config.manifest_path,
                                                         "--output-dir", config.output_dir})
    s += text_of({" ", shell_quoted(arg)});
  for (const std::string& arg : options.task_flags) s += text_of({" ", shell_quoted(arg)});
  s += text_of({" --backend slurm --worker --jobs ", std::to_string(std::max(1u, options.jobs))});
  return s + "\n";
}

std::string submit(const batch_config& config, const output_dir& dir, const batch_plan& plan,
                   const slurm_options& options, const std::vector<std::size_t>& lines) {
  const std::string slurm_dir = config.output_dir + "/slurm";
  const unique_fd slurm = open_output_subdir(dir.fd.get(), dir.path, "slurm");
  replace_file_at(slurm.get(), slurm_dir, "job.sh", job_script(config, options));
  const claim_dir claims(dir);
  claims.put("lines", render_line_list(lines));
  const unsigned jobs = std::max(1u, options.jobs);
  const auto resources = slurm_resources(plan, lines, jobs, 1);
  const unsigned cpus = static_cast<unsigned>(std::stoul(resources[0].substr(resources[0].find('=') + 1)));
  const unsigned workers = worker_count(options.workers, lines.size(), jobs, cpus, slurm_max_array_size(),
                                        slurm_partition_cpus(options.partition));
  std::vector<std::string> args{"--parsable", "--job-name=plb-sandbox-batch", "--no-requeue",
                                text_of({"--array=0-", std::to_string(workers - 1)}),
                                "--output=" + slurm_dir + "/%A_%a.log"};
  for (auto& r : slurm_resources(plan, lines, jobs, workers)) args.push_back(std::move(r));
  if (!options.partition.empty()) args.push_back("--partition=" + options.partition);
  if (!options.account.empty()) args.push_back("--account=" + options.account);
  args.insert(args.end(), options.sbatch_options.begin(), options.sbatch_options.end());
  args.push_back(slurm_dir + "/job.sh");
  const command_output out = run_command(sbatch_path, args, std::chrono::seconds(60));
  std::string job = out.out.substr(0, out.out.find_first_of(";\n"));
  if (out.exit_code != 0 || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
    fail(verdict::host_refused, "sbatch refused the job array: " + one_line(out.err.empty() ? out.out : out.err));
  replace_file_at(slurm.get(), slurm_dir, "job-id", job + "\n");
  return job;
}

// The job recorded in slurm/job-id if Slurm still has some of its tasks queued, else "".
std::string queued_job(const output_dir& dir) {
  const unique_fd slurm = open_output_subdir(dir.fd.get(), dir.path, "slurm");
  const auto text = read_own_file(slurm.get(), "job-id", dir.owner, 64);
  if (!text) return {};
  const std::string job = text->substr(0, text->find('\n'));
  if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos) return {};
  return query_queue(job).queued ? job : std::string();
}

}  // namespace

void check_shared_output_dir(const std::string& dir) {
  std::error_code ec;
  const auto real = std::filesystem::weakly_canonical(dir, ec).string();
  for (const char* local : {"/tmp", "/var/tmp", "/dev/shm", "/run"}) {
    const std::string prefix = local;
    if (real != prefix && real.rfind(prefix + "/", 0) != 0) continue;
    std::string why = "--output-dir " + dir;
    why += ": under " + prefix;
    why += ", which is local to this machine; Slurm tasks on other nodes must see it (use storage every node mounts)";
    fail(verdict::usage_error, why);
  }
  struct statfs fs {};
  if (::statfs(std::filesystem::path(real).parent_path().c_str(), &fs) == 0 &&
      (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
    fail(verdict::usage_error, "--output-dir " + dir + ": on a memory file system local to this machine");
}

std::string array_ranges(const std::vector<std::size_t>& indexes) {
  std::string out;
  for (std::size_t i = 0; i < indexes.size();) {
    std::size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(indexes[i]);
    if (j > i) out += text_of({"-", std::to_string(indexes[j])});
    i = j + 1;
  }
  return out;
}

std::vector<std::string> slurm_resources(const batch_plan& plan, const std::vector<std::size_t>& lines, unsigned jobs,
                                         unsigned workers) {
  std::uint64_t millicores = 0, memory = 0, longest = 0, total = 0;
  for (const std::size_t i : lines) {
    const auto& l = plan.limits(i);
    millicores = std::max(millicores, l.cpu_millicores);
    memory = std::max(memory, l.memory_mib + l.input_json_mib);
    // A line's bound: its start allowance and wall time (run_clock.hpp), the grace, its overhead.
    const std::uint64_t line = l.start_seconds + l.wall_seconds + grace_seconds + line_overhead_seconds;
    longest = std::max(longest, line);
    total += line;
  }
  jobs = std::max(1u, jobs);
  // One worker's share of the work at `jobs` at once (all of it for a single worker, or an
  // unknown W), the longest line twice more (a late line, one handed back), and the preflight.
  const std::uint64_t share = workers > 1 ? total / workers : total;
  const std::uint64_t seconds = share / jobs + 2 * longest + task_overhead_seconds;
  return {"--cpus-per-task=" + std::to_string(jobs * ((millicores + 999) / 1000)),
          "--mem=" + std::to_string(jobs * memory + tool_overhead_mib) + "M",
          "--time=" + std::to_string((seconds + 59) / 60)};
}

batch_outcome run_slurm_batch(const batch_config& config, const batch_plan& plan, const slurm_options& options,
                              const batch_hooks& hooks) {
  check_shared_output_dir(config.output_dir);
  const output_dir dir = open_output_dir(config.output_dir, true);
  batch_start start = start_batch(config, plan, dir);
  const queued_batch batch{
      plan, dir, {config.manifest_path, plan.manifest_sha256, config.output_dir, "slurm", utc_timestamp(), {}, {}, {}}};
  write_summary(dir, batch.header, plan, start.outcomes);
  if (start.to_run.empty()) return {std::move(start.outcomes), 0};
  // A submitter that was killed left its workers running: wait on them rather than submit again.
  std::string job = queued_job(dir);
  if (job.empty()) {
    // A retried line's old record (resume verified it) goes now, so that --collect never mistakes
    // it for the new run's, and no worker takes it for done.
    for (const std::size_t i : start.to_run) ::unlinkat(dir.fd.get(), record_name(std::string(plan.id(i))).c_str(), 0);
    job = submit(config, dir, plan, options, start.to_run);
    if (hooks.on_submitted) hooks.on_submitted(job);
  }
  if (!options.wait) return {std::move(start.outcomes), 0};
  resubmitter again;
  again.submit = [&](const std::vector<std::size_t>& lines) { return submit(config, dir, plan, options, lines); };
  return wait_for_job(job, batch, std::move(start), hooks, std::move(again));
}

batch_outcome collect_slurm_batch(const batch_config& config, const batch_plan& plan, const batch_hooks& hooks) {
  const output_dir dir = open_output_dir(config.output_dir, true);
  batch_config as_found = config;
  as_found.retry = retry_policy::none;  // collecting re-runs nothing
  batch_start start = start_batch(as_found, plan, dir);
  const queued_batch batch{
      plan, dir, {config.manifest_path, plan.manifest_sha256, config.output_dir, "slurm", utc_timestamp(), {}, {}, {}}};
  const std::string job_id = config.output_dir + "/slurm/job-id";
  const unique_fd slurm = open_output_subdir(dir.fd.get(), dir.path, "slurm");
  const auto job = read_own_file(slurm.get(), "job-id", dir.owner, 64);
  if (!job)
    fail(verdict::usage_error, "--collect: " + job_id + ": no submission recorded here (" + job.error().what + ")");
  // Its submission's options (partition, account, task flags) were the first command's: a job
  // array whose workers all died leaves its lines not_run, and the same batch command runs them.
  return wait_for_job(job->substr(0, job->find('\n')), batch, std::move(start), hooks, resubmitter{0, {}});
}

}  // namespace plb::batch
