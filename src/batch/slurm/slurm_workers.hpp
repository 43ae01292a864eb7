// SPDX-License-Identifier: Apache-2.0
// The submitter's side of the Slurm workers: how many to submit, and what to do about workers that
// die holding lines or cannot run at all.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "batch/backend.hpp"
#include "batch/batch_claims.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::batch {

// Added to a claim's time, with the line's start allowance, wall time and the warden's grace, before
// a dead worker's line is handed to another: what a worker may take from its claim to the
// container's creation. The sandbox it may have started is gone by then (the deadline warden removes
// it at its creation + start + wall + grace), so no line ever runs twice at the same time.
inline constexpr std::int64_t claim_start_allowance_seconds = 20;

// W: `requested` if given, else what the lines need at `jobs` runs per worker, and no more than the
// cluster's CPUs hold at once (0: unknown); never more than the lines or MaxArraySize (0: unknown).
unsigned worker_count(unsigned requested, std::size_t lines, unsigned jobs, unsigned cpus_per_worker,
                      std::size_t max_array_size, std::size_t cluster_cpus);

// `scontrol show config`'s MaxArraySize, or 0 when absent.
std::size_t parse_max_array_size(const std::string& scontrol_config);
// The sum of the totals in `sinfo -h -o %C` lines ("allocated/idle/other/total"), or 0.
std::size_t parse_sinfo_cpus(const std::string& sinfo);

// Both, asked of the cluster (0 when it does not say).
std::size_t slurm_max_array_size();
std::size_t slurm_partition_cpus(const std::string& partition);

// Claims whose worker is no longer alive (not among `alive`, squeue's "<job>_<task>" of pending
// and running tasks) are moved to the lost claims (claim_dir) once their line has a record or its sandbox's
// deadline has passed; another worker then takes the line. Returns how many were handed back.
std::size_t hand_back_lost_claims(const claim_dir& claims, const batch_plan& plan, const std::set<std::string>& alive,
                                  std::int64_t now);

// True when `when` (seconds) is past the time a claim of `item` may still have a sandbox running.
bool claim_expired(const claim_info& claim, const sandbox::SandboxLimits& limits, std::int64_t when);

// The reports of job array `job`'s own workers ("<job>_<task>"), not those an earlier array of the
// same output directory left.
std::vector<worker_report> workers_of_job(std::vector<worker_report> reports, const std::string& job);
// True when there were workers and every one was refused by its node's preflight.
bool every_worker_refused(const std::vector<worker_report>& workers);

// The outcome of a line no worker recorded once the job has ended: host_refused when every worker
// that reported was refused by its node's preflight (each node and why), else not_run.
line_outcome unrun_line(const std::string& job, const std::vector<worker_report>& workers,
                        const std::optional<claim_info>& claim);
// The outcome of a line whose workers Slurm would never start (`reason`: squeue's, a never_schedulable
// one): host_refused, naming the job and the reason.
line_outcome unscheduled_line(const std::string& job, const std::string& reason);

}  // namespace plb::batch
