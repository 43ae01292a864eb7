// SPDX-License-Identifier: Apache-2.0
#include "runner/score/score.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <future>

#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/container/container_run.hpp"
#include "runner/container/cpu_allocator.hpp"
#include "runner/container/owner.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/container/run_id.hpp"
#include "runner/container/sweep.hpp"
#include "runner/host/preflight.hpp"
#include "runner/host/warden.hpp"
#include "runner/score/bundle_cache.hpp"
#include "runner/score/judge.hpp"
#include "runner/score/output_files.hpp"
#include "runner/score/provenance_seal.hpp"
#include "runner/score/run_record.hpp"
#include "runner/score/script_outcome.hpp"
#include "support/failure.hpp"

namespace plb::runner {

sandbox::sandbox_policy build_policy(const score_request& request, const std::string& script_path,
                                     const std::string& run_id, const std::string& cpuset) {
  sandbox::sandbox_policy_builder builder;
  builder.image(request.image).script(script_path).run_id(run_id).owner(self_owner()).limits(request.limits);
  if (!cpuset.empty()) builder.cpuset(cpuset);
  if (request.has_bundle()) builder.bundle(bundle_cache_tree(*request.bundle_sha256));  // a bundle run's only
  auto spec = builder.build();
  if (!spec) fail(sandbox::verdict::internal_error, "sandbox policy: " + std::string(sandbox::message(spec.error)));
  return std::move(*spec.spec);
}

namespace {

using sandbox::verdict;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A batch hands its one preflight to every line, but the warden is asked again for each: a
// warden that died mid-batch must not leave the later lines without their bound.
void require_warden() {
  if (const auto r = check_warden(); !r) fail(verdict::host_refused, r.error().detail + ": " + r.error().fix);
}

// A run's inputs read and verified, and the script's snapshot in the run directory.
struct staged_inputs {
  prepared_inputs in;
  script_snapshot snapshot;
  std::optional<bundle_snapshot> bundle;  // a bundle run's copy, its digest the reviewed one
  unique_fd bundle_held;                  // its cache entry's lock, held until the run ends
};

// The spec was built first, so the snapshot belongs to exactly the user the sandbox runs as.
staged_inputs stage_inputs(const score_request& request, verified_script script, const run_directory& dir,
                           const cancellation& cancel, const sandbox::sandbox_policy& spec) {
  prepared_inputs in = prepare_inputs(request, std::move(script), &cancel);
  cancel.check();
  auto snapshot = write_snapshot(in.script, dir, spec.uid(), spec.gid());
  cancel.check();
  std::optional<bundle_snapshot> bundle;
  unique_fd held;
  if (request.has_bundle()) {  // held to its digest here: no container exists before this returns
    cached_bundle cached =
        take_cached_bundle({request.bundle, *request.bundle_sha256, request.limits, spec.run_id(), spec.uid(),
                            spec.gid(), request.names.bundle, request.names.bundle_sha256});
    if (cached.snapshot.path != spec.bundle_path())
      fail(verdict::internal_error, "the bundle snapshot is not where the sandbox policy mounts it");
    bundle = std::move(cached.snapshot);
    held = std::move(cached.held);
    cancel.check();
  }
  return {std::move(in), std::move(snapshot), std::move(bundle), std::move(held)};
}

docker_run_request run_request(const score_request& request, const sandbox::sandbox_policy& spec,
                               const run_directory& dir, const run_hooks& hooks) {
  docker_run_request run;
  run.arguments = spec.docker_run_arguments();
  run.wall = std::chrono::seconds(request.limits.wall_seconds);
  run.start_allowance = std::chrono::seconds(request.limits.start_seconds);
  run.output_cap_bytes = sandbox::bytes(request.limits.output_mib);  // the rows' cap replaces it at run()
  run.stderr_tail_bytes = request.stderr_tail_bytes;                 // 0 unless the operator asked for it
  run.private_config_dir = dir.docker_config_dir();
  run.client_cpus = spec.cpuset();
  run.on_progress = hooks.on_progress;
  run.cancel = &hooks.cancel;
  return run;
}

// Ends one phase of the run at a time, in order (score.hpp's run_report::phases).
class phase_clock {
 public:
  explicit phase_clock(sandbox::scoring_phases& phases) : phases_(phases) {}
  void end(double sandbox::scoring_phases::*phase) {
    const auto now = std::chrono::steady_clock::now();
    phases_.*phase = std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  sandbox::scoring_phases& phases_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The outcome to where the request wants it: both files published (and withdrawn again if a
// stop request arrived meanwhile), or, for the in-memory API, into the report.
void deliver(const score_request& request, std::vector<double> predictions, const std::string& csv_text,
             sandbox::provenance_record rec, const std::optional<host_key>& key, const cancellation& cancel,
             run_report& report) {  // the provenance is sealed under `key`: verify trusts no other
  if (!request.publish) {
    report.predictions = std::move(predictions);
    report.provenance = std::move(rec);
    return;
  }
  // The diagnostics file, when asked for, is published with them: all three or none.
  const std::string diagnostics = report.stderr_diagnostics ? request.stderr_path : std::string();
  const bool made_dir =
      publish_outputs(request.output, csv_text, request.provenance, sealed_provenance(rec, key.value()), diagnostics,
                      report.stderr_diagnostics.value_or(std::string()));
  if (cancel.signal()) {  // arrived while publishing: nothing stays published, not even the directory
    unpublish_outputs(request.output, request.provenance, made_dir, diagnostics);
    cancel.check();
  }
  report.predictions_path = request.output;
  report.provenance_path = request.provenance;
  report.stderr_path = diagnostics;
}

}  // namespace

void sandbox_score(const score_request& request, const run_hooks& hooks, run_report& report) {
  using phases = sandbox::scoring_phases;
  const cancellation& cancel = hooks.cancel;
  phase_clock clock(report.phases);
  // A request that cannot run fails here, before a reaper, a CPU or a docker client is spent on it.
  verified_script script = check_local_inputs(request);
  const std::optional<host_key> key = request.publish ? std::optional(this_host_key()) : std::nullopt;  // checked now
  const std::string run_id = new_run_id();
  run_directory dir(run_id);
  const docker_engine engine;
  // The reaper is forked first, while the process is smallest, and watches the name from here on
  // (should the run end before its client starts, it is released without a word to the daemon).
  container_run container(engine, std::string(sandbox::policy_constants::name_prefix) + run_id,
                          std::chrono::seconds(request.limits.start_seconds + request.limits.wall_seconds));
  // CPUs no other run here holds (it waits for them); the inputs are staged alongside the preflight.
  const cpu_lease cpus = host_cpu_allocator().acquire(request.limits.cpu_millicores, cancel);
  const sandbox::sandbox_policy spec =
      build_policy(request, dir.path() + "/" + snapshot_file_name, run_id, cpus.list());
  // The docker client starts up (its Go runtime, flags and configuration) alongside the preflight
  // and the staging, held at its engine gate: it reaches the daemon only in container.run().
  container.launch(run_request(request, spec, dir, hooks));
  auto staging = std::async(hooks.host ? std::launch::deferred : std::launch::async,
                            [&] { return stage_inputs(request, std::move(script), dir, cancel, spec); });
  labelled_list listed;
  const host_facts host = hooks.host ? *hooks.host : preflight(engine, request.image, request.limits, cancel, &listed);
  if (hooks.host) require_warden();
  cancel.check();
  // What runs killed before they could clean up left behind goes before anything new starts.
  if (!hooks.host) sweep_orphans(engine, std::move(listed));
  cancel.check();
  clock.end(&phases::preflight);
  const staged_inputs staged = staging.get();
  const prepared_inputs& in = staged.in;
  cancel.check();
  const std::string started_at = utc_now();
  cgroup_monitor monitor(host.daemon.cgroup_version, host.daemon.cgroup_driver);
  clock.end(&phases::start);
  const std::uint64_t output_cap = sandbox::output_cap_bytes(request.limits, in.input.table.rows());  // grows with them
  const completed_run done = container.run(in.document, monitor, output_cap);
  const docker_run_outcome& out = done.outcome;
  clock.end(&phases::cleanup);  // the client's life, then the cleanup after it
  report.phases.run = out.elapsed.count();
  report.phases.cleanup = std::max(0.0, report.phases.cleanup - report.phases.run);
  report.usage = usage_of(done);
  // A container that may remain is reported as such, even when a stop request ended the run.
  if (!done.removal) fail(verdict::cleanup_failed, done.removal.error().what);
  if (out.interrupted_by) throw interrupted{out.interrupted_by};
  cancel.check();  // a stop request after the client exited is not swallowed
  // The verdict, then the predictions; the diagnostics file (if asked for) kept for either.
  std::vector<double> predictions =
      judged_predictions(done, request, in.input.table.rows(), output_cap, started_at, report);
  const std::string csv_text = render_predictions_csv(in.input.table, predictions);
  sandbox::provenance_record rec = provenance_of(request, host, in, staged.snapshot.digest, csv_text, *report.usage,
                                                 spec.cpuset(), hooks, staged.bundle);
  rec.started_at = started_at;
  cancel.check();
  deliver(request, std::move(predictions), csv_text, std::move(rec), key, cancel, report);
  clock.end(&phases::publish);
}

}  // namespace plb::runner
