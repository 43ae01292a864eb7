#include "score.hpp"

#include <chrono>
#include <ctime>

#include "container_cleanup.hpp"
#include "docker_run.hpp"
#include "failure.hpp"
#include "input_data.hpp"
#include "output_files.hpp"
#include "plb/sandbox/container_spec.hpp"
#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/predictions_parser.hpp"
#include "preflight.hpp"
#include "owner.hpp"
#include "run_id.hpp"
#include "sweep.hpp"
#include "snapshot.hpp"
#include "workspace.hpp"

#ifndef PLB_SANDBOX_VERSION
#define PLB_SANDBOX_VERSION "unknown"
#endif

namespace plb::tool {
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

std::string seconds_text(std::uint64_t s) { return std::to_string(s) + " s"; }

// Turns what was observed into a verdict. Only numbers and the tool's own words reach a message.
void judge(const docker_run_outcome& out, const std::optional<container_state>& state,
           const sandbox::SandboxLimits& limits) {
  if (out.daemon_lost)
    fail(verdict::runtime_failed, "the Docker daemon stopped answering during the run (restarted?); the run's container was removed");
  if (out.timed_out) fail(verdict::timeout, "the script did not finish within its " + seconds_text(limits.wall_seconds) + " wall time");
  if (out.output_cap_exceeded)
    fail(verdict::output_cap_exceeded, "the script wrote more than " + std::to_string(limits.output_mib) +
                                           " MiB to stdout and stderr together");
  const bool oom = (state && state->oom_killed) || out.usage.oom_kills > 0;
  if (oom) fail(verdict::memory_exhausted, "the sandbox ran out of its " + std::to_string(limits.memory_mib) + " MiB of memory");
  if (!state || state->started_at.empty() || state->started_at.starts_with("0001-")) {
    if (state && !state->error.empty()) fail(verdict::runtime_failed, "the container did not start: " + state->error);
    fail(verdict::runtime_failed, "docker run failed before the container started (client exit " +
                                      std::to_string(out.client_exit_code) + ")");
  }
  if (state->exit_code != 0) {
    if (state->exit_code == 137 && out.usage.memory_limit_hits > 0)
      fail(verdict::memory_exhausted, "the sandbox was killed at its " + std::to_string(limits.memory_mib) + " MiB memory limit");
    std::string why = "the script exited with status " + std::to_string(state->exit_code);
    if (out.usage.pids_limit_hits > 0)
      why += " after the sandbox reached its host task limit (" + std::to_string(sandbox::pids_limit(limits)) + ")";
    fail(verdict::script_failed, why);
  }
}

// Removes the run's container on every path out of the run, including exceptions.
class container_guard {
 public:
  container_guard(const docker_engine& e, std::string name) : engine_(e), name_(std::move(name)) {}
  ~container_guard() {
    if (!armed_) return;
    try {
      remove_container(engine_, name_);
    } catch (...) {  // already failing: the first error is the one reported
    }
  }
  void remove() {
    armed_ = false;
    remove_container(engine_, name_);
  }

 private:
  const docker_engine& engine_;
  std::string name_;
  bool armed_ = true;
};

}  // namespace

score_result sandbox_score(const score_request& request) {
  const std::string run_id = new_run_id();
  workspace ws(run_id);
  const docker_engine engine;
  const host_facts host = preflight(engine, request.image, request.limits, ws.docker_config_dir());

  const auto snapshot = take_snapshot(request.model, request.model_sha256, sandbox::bytes(request.limits.script_mib),
                                      ws.path(), sandbox::spec_constants::default_uid, sandbox::spec_constants::default_gid);
  sandbox::csv_options csv;
  csv.max_values = request.limits.input_values;
  input_data input = read_input(request.data, request.features, request.id_column, csv);

  std::string document;
  sandbox::encode_options enc;
  enc.max_bytes = sandbox::bytes(request.limits.input_json_mib);
  const auto size = sandbox::encoded_size(input.table.values, input.table.columns());
  if (size && size.bytes <= enc.max_bytes) document.reserve(size.bytes);
  const auto encoded = sandbox::encode_features_to_string(input.table.values, input.table.columns(), document, enc);
  if (!encoded)
    fail(verdict::input_refused, "--data " + request.data + ": encoded input of " + std::to_string(encoded.bytes) +
                                     " bytes: " + std::string(sandbox::message(encoded.error)) + " (" +
                                     std::to_string(request.limits.input_json_mib) + " MiB)");

  sandbox::container_spec_builder builder;
  builder.image(request.image).script(snapshot.path).run_id(run_id).owner(self_owner()).limits(request.limits);
  const auto spec = builder.build();
  if (!spec) fail(verdict::internal_error, "container spec: " + std::string(sandbox::message(spec.error)));

  docker_run_request run;
  run.arguments = spec.spec.docker_run_arguments();
  run.container_name = spec.spec.container_name();
  run.stdin_data = document;
  run.wall = std::chrono::seconds(request.limits.wall_seconds);
  run.output_cap_bytes = sandbox::bytes(request.limits.output_mib);
  run.environment = docker_client_environment(ws.docker_config_dir());

  score_result result;
  auto& rec = result.record;
  rec.started_at = utc_now();
  cgroup_monitor monitor(host.daemon.cgroup_version, host.daemon.cgroup_driver);
  container_guard guard(engine, run.container_name);
  const docker_run_outcome out = run_docker(run, engine, monitor);
  await_daemon(engine, run.container_name);
  const auto state = inspect_container(engine, run.container_name);
  guard.remove();
  if (out.interrupted_by) throw interrupted{out.interrupted_by};
  judge(out, state, request.limits);

  std::vector<double> predictions;
  sandbox::predictions_options po;
  po.task = request.task;
  po.expected_rows = input.table.rows();
  po.max_bytes = run.output_cap_bytes;
  const auto parsed = sandbox::parse_predictions(out.stdout_bytes, po, predictions);
  if (!parsed)
    fail(verdict::output_rejected, "stdout rejected at byte " + std::to_string(parsed.offset) + ": " +
                                       std::string(sandbox::message(parsed.error)));

  const std::string csv_text = render_predictions_csv(input.table, predictions);
  rec.tool_version = PLB_SANDBOX_VERSION;
  rec.model_sha256 = snapshot.digest;
  rec.runtime_image = request.image;
  rec.runtime_name = "runsc";
  rec.runtime_version = host.runtime_version;
  rec.limits = request.limits;
  rec.task = request.task;
  rec.features = request.features;
  rec.id_column = request.id_column;
  rec.rows = input.table.rows();
  rec.input_sha256 = input.digest;
  rec.predictions_sha256 = sandbox::sha256_of(csv_text).digest;
  rec.wall_seconds = out.elapsed.count();
  rec.outcome = verdict::success;
  publish_outputs(request.output, csv_text, request.provenance, sandbox::render_json(rec));
  result.predictions_path = request.output;
  result.provenance_path = request.provenance;
  return result;
}

}  // namespace plb::tool
