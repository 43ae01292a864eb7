// SPDX-License-Identifier: Apache-2.0
#include "runner/score/run_record.hpp"

#include <filesystem>

#ifndef PLB_SANDBOX_VERSION
#define PLB_SANDBOX_VERSION "unknown"
#endif

namespace plb::runner {

using sandbox::verdict;

sandbox::sandbox_usage usage_of(const completed_run& done) {
  const docker_run_outcome& out = done.outcome;
  sandbox::sandbox_usage u;
  u.startup_seconds = done.times.started ? done.times.startup_seconds : out.elapsed.count();
  u.wall_seconds = done.times.script_seconds;
  u.cpu_seconds = static_cast<double>(out.usage.cpu_nanoseconds) / 1e9;
  u.memory_peak_bytes = out.usage.memory_peak_bytes;
  u.output_bytes = out.output_bytes;
  u.host_tasks_peak = out.usage.pids_peak;
  return u;
}

sandbox::provenance_record provenance_of(const score_request& request, const host_facts& host,
                                         const prepared_inputs& in, const sandbox::sha256_digest& model,
                                         const std::string& csv_text, const sandbox::sandbox_usage& usage,
                                         const std::string& cpuset, const run_hooks& hooks,
                                         const std::optional<bundle_snapshot>& bundle) {
  sandbox::provenance_record rec;
  rec.tool_version = PLB_SANDBOX_VERSION;
  rec.model_sha256 = model;
  rec.runtime_image = request.image;
  rec.runtime_name = std::string(sandbox::policy_constants::runtime);
  rec.runtime_version = host.runtime_version;
  rec.runtime_release = host.runtime_release;
  rec.runtime_platform = host.runtime_platform;
  rec.limits = request.limits;
  rec.task = request.task;
  rec.features = request.features;
  rec.id_column = request.id_column;
  rec.rows = in.input.table.rows();
  rec.input_sha256 = in.input.digest;
  rec.predictions_sha256 = sandbox::sha256_of(csv_text).digest;
  rec.usage = usage;
  rec.outcome = verdict::success;
  // Where its inputs and its predictions (the one file it vouches for) were, for `verify`; none
  // for the in-memory API's, which had no files.
  const auto path = [](const std::string& p) { return std::filesystem::absolute(p).lexically_normal().string(); };
  if (!request.script_bytes) rec.model_path = path(request.model);
  if (!request.table) rec.data_path = path(request.data);
  rec.input_bytes = in.input.file_bytes;  // recorded with data_path only
  if (request.publish) rec.predictions_path = path(request.output);
  rec.cpuset = cpuset;  // where it ran: its CPUs, and a batch line's node and worker
  rec.node = hooks.node;
  rec.worker = hooks.worker;
  if (bundle) {  // the bundle as its snapshot found it: the reviewed digest, checked before the run
    rec.bundle_sha256 = bundle->digest;
    rec.bundle_bytes = bundle->bytes;
    rec.bundle_files = bundle->files;
    rec.bundle_path = path(request.bundle);
  }
  return rec;
}

}  // namespace plb::runner
