// SPDX-License-Identifier: Apache-2.0
#include "batch/slurm/slurm_workers.hpp"

#include <algorithm>
#include <sstream>

#include "plb/sandbox/sandbox_policy.hpp"
#include "support/command.hpp"

namespace plb::batch {
namespace {

constexpr const char* scontrol_path = "/usr/bin/scontrol";
constexpr const char* sinfo_path = "/usr/bin/sinfo";

std::size_t to_size(const std::string& s) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<std::size_t>(std::stoull(s));
}

}  // namespace

unsigned worker_count(unsigned requested, std::size_t lines, unsigned jobs, unsigned cpus_per_worker,
                      std::size_t max_array_size, std::size_t cluster_cpus) {
  jobs = std::max(1u, jobs);
  std::size_t w = requested ? requested : (lines + jobs - 1) / jobs;
  if (!requested && cluster_cpus)
    w = std::min(w, std::max<std::size_t>(1, cluster_cpus / std::max(1u, cpus_per_worker)));
  w = std::min(w, std::max<std::size_t>(lines, 1));
  if (max_array_size) w = std::min(w, max_array_size);
  return static_cast<unsigned>(std::max<std::size_t>(w, 1));
}

std::size_t parse_max_array_size(const std::string& text) {
  std::istringstream in(text);
  std::string key, eq, value;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    if (words >> key >> eq >> value && key == "MaxArraySize" && eq == "=") return to_size(value);
  }
  return 0;
}

std::size_t parse_sinfo_cpus(const std::string& text) {
  std::istringstream in(text);
  std::size_t total = 0;
  for (std::string line; in >> line;) {
    const std::size_t slash = line.rfind('/');
    if (slash != std::string::npos) total += to_size(line.substr(slash + 1));
  }
  return total;
}

std::size_t slurm_max_array_size() {
  const auto out = run_command(scontrol_path, {"show", "config"}, std::chrono::seconds(30));
  return out.exit_code == 0 ? parse_max_array_size(out.out) : 0;
}

std::size_t slurm_partition_cpus(const std::string& partition) {
  std::vector<std::string> args{"--noheader", "--format=%C"};
  if (!partition.empty()) args.push_back("--partition=" + partition);
  const auto out = run_command(sinfo_path, args, std::chrono::seconds(30));
  return out.exit_code == 0 ? parse_sinfo_cpus(out.out) : 0;
}

bool claim_expired(const claim_info& claim, const sandbox::SandboxLimits& limits, std::int64_t when) {
  const auto bound = static_cast<std::int64_t>(limits.start_seconds + limits.wall_seconds);
  return when >= claim.claimed_at + bound +
                     static_cast<std::int64_t>(sandbox::policy_constants::deadline_grace_seconds) +
                     claim_start_allowance_seconds;
}

std::size_t hand_back_lost_claims(const claim_dir& claims, const batch_plan& plan, const std::set<std::string>& alive,
                                  std::int64_t now) {
  const std::vector<std::string> held = claims.held();
  if (held.empty()) return 0;
  std::size_t handed = 0;
  for (const std::string& id : held) {
    const auto line = plan.find(id);
    const auto claim = claims.read(id);
    if (!line || !claim || alive.count(claim->worker)) continue;
    if (claim_expired(*claim, plan.limits(*line), now) && claims.move_to_lost(id, *claim)) ++handed;
  }
  return handed;
}

std::vector<worker_report> workers_of_job(std::vector<worker_report> reports, const std::string& job) {
  const auto other = [&](const worker_report& w) {
    return w.worker.size() <= job.size() || w.worker.compare(0, job.size(), job) != 0 || w.worker[job.size()] != '_';
  };
  reports.erase(std::remove_if(reports.begin(), reports.end(), other), reports.end());
  return reports;
}

bool every_worker_refused(const std::vector<worker_report>& workers) {
  return !workers.empty() &&
         std::all_of(workers.begin(), workers.end(), [](const worker_report& w) { return w.state == "refused"; });
}

line_outcome unrun_line(const std::string& job, const std::vector<worker_report>& workers,
                        const std::optional<claim_info>& claim) {
  line_outcome o;
  if (every_worker_refused(workers) && !claim) {
    o.state = std::string(sandbox::name(sandbox::verdict::host_refused));
    o.exit_code = sandbox::exit_code(sandbox::verdict::host_refused);
    o.message = "no worker could run this line:";
    for (const auto& w : workers) {
      if (o.message.size() > 1500) break;
      o.message.append(" node ").append(w.node).append(" (worker ").append(w.worker).append("): ");
      o.message.append(w.message.substr(0, 300)).append(";");
    }
    o.message.pop_back();
    return o;
  }
  o.state = "not_run";
  o.message = "Slurm job " + job;
  o.message += " ended without a verdict for this line";
  if (claim)
    o.message.append(" (worker ").append(claim->worker).append(" on node ").append(claim->node).append(" held it)");
  o.message.append("; see slurm/").append(job).append("_*.log");
  return o;
}

line_outcome unscheduled_line(const std::string& job, const std::string& reason) {
  line_outcome o;
  o.state = std::string(sandbox::name(sandbox::verdict::host_refused));
  o.exit_code = sandbox::exit_code(sandbox::verdict::host_refused);
  o.message = "Slurm would never start the workers of job " + job;
  o.message.append(" (pending: ").append(reason.substr(0, 200));
  o.message +=
      "): the cluster has no node or partition that meets their request (--cpus-per-task, --mem, --time, "
      "account or QOS); the job was cancelled";
  return o;
}

}  // namespace plb::batch
