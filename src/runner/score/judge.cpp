// SPDX-License-Identifier: Apache-2.0
#include "runner/score/judge.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

// The container's end as it happened: the client, attached through the daemon, exited with the
// very status the daemon (answering again) reports for the container. A daemon that was slow or
// briefly unreachable meanwhile changed nothing the script did, so the verdict is the container's;
// calling it a runtime failure would make it retryable and give the script a second run. A client
// that lost the daemon exits with its own error instead (125), and then nothing shows how the
// script ended.
bool end_seen_by_client(const completed_run& done) {
  const auto& state = done.state;
  return state && state->status == "exited" && done.outcome.client_exited &&
         done.outcome.client_exit_code == state->exit_code;
}

std::optional<run_verdict> judge_exit(const completed_run& done, const sandbox::SandboxLimits& limits) {
  const docker_run_outcome& out = done.outcome;
  const container_state& state = *done.state;
  if (!end_seen_by_client(done))
    return run_verdict{verdict::runtime_failed, "the docker client did not report the container's exit (client exit " +
                                                    std::to_string(out.client_exit_code) + ", container exit " +
                                                    std::to_string(state.exit_code) + "): the daemon lost the run"};
  if (state.exit_code == 0) return std::nullopt;
  if (state.exit_code == 137 && out.usage.memory_limit_hits > 0)
    return run_verdict{verdict::memory_exhausted,
                       "the sandbox was killed at its " + std::to_string(limits.memory_mib) + " MiB memory limit"};
  std::string why = "the script exited with status " + std::to_string(state.exit_code);
  if (out.usage.pids_limit_hits > 0)
    why += " after the sandbox reached its host task limit (" + std::to_string(sandbox::pids_limit(limits)) + ")";
  return run_verdict{verdict::script_failed, why};
}

// A timeout is the script's own run reaching its wall time. The watchdog's kill at the deadline is
// one, unless the daemon dated the exit before the kill and within the wall time (its inspection at
// the deadline did not answer in time to say so). Otherwise each view of the script's end can only
// be late, so the run is past its wall time only by every view there is: the daemon's record (it
// dates the exit as it handles it) and this process's (its client's exit, later still on a loaded
// host; the tool may also have been stopped meanwhile, and the reaper killed the run).
bool script_timed_out(const completed_run& done, const sandbox::SandboxLimits& limits) {
  const docker_run_outcome& out = done.outcome;
  const std::optional<container_state>& state = done.state;
  const double wall = static_cast<double>(limits.wall_seconds);
  const bool in_time_by_the_daemon = done.times.end_by_daemon && done.times.script_seconds < wall;
  const bool exited_before_the_kill =
      in_time_by_the_daemon && state && state->finished_ns && *state->finished_ns < out.timed_out_unix_ns;
  const bool watchdog_saw = out.seen_start_unix_ns.has_value();
  const bool past_wall = done.times.started && (done.times.end_by_daemon || watchdog_saw) && !in_time_by_the_daemon &&
                         (!watchdog_saw || out.seen_past_wall);
  return (out.timed_out && !exited_before_the_kill) || (past_wall && !out.output_cap_exceeded);
}

}  // namespace

std::optional<run_verdict> judge(const completed_run& done, const sandbox::SandboxLimits& limits,
                                 std::optional<std::uint64_t> output_cap) {
  const docker_run_outcome& out = done.outcome;
  const std::optional<container_state>& state = done.state;
  // Cleanup first: a container that may remain is the operator's problem whatever the script did.
  if (!done.removal) return run_verdict{verdict::cleanup_failed, done.removal.error().what};
  if (!out.client_start) return run_verdict{verdict::internal_error, out.client_start.error().what};
  if (done.daemon_lost && !end_seen_by_client(done))
    return run_verdict{
        verdict::runtime_failed,
        "the Docker daemon stopped answering during the run (restarted?); the run's container was removed"};
  if (out.reaper_lost)
    return run_verdict{verdict::runtime_failed,
                       "the run's reaper process died, so the run was stopped before the script finished"};
  // The host's start-up before the script's own run (run_clock.hpp): never charged to the script.
  if (out.start_timed_out ||
      (done.times.started && done.times.startup_seconds > static_cast<double>(limits.start_seconds)))
    return run_verdict{verdict::runtime_failed, "the container did not start within its " +
                                                    std::to_string(limits.start_seconds) +
                                                    " s start allowance (the daemon and gVisor were slow: the host's "
                                                    "load, not the script)"};
  if (script_timed_out(done, limits))
    return run_verdict{verdict::timeout, "the script did not finish within its " + std::to_string(limits.wall_seconds) +
                                             " s wall time (counted from its container's start)"};
  if (out.client_ended_late)
    return run_verdict{verdict::runtime_failed,
                       "the container exited in time, but its docker client had not reported it 5 s later (the "
                       "host's load, not the script); the client was ended"};
  if (out.output_cap_exceeded) {
    // Past output_mib only where the input's rows need more (sandbox::output_cap_bytes).
    const std::string cap = !output_cap || *output_cap <= sandbox::bytes(limits.output_mib)
                                ? std::to_string(limits.output_mib) + " MiB"
                                : std::to_string(*output_cap) + " bytes (" +
                                      std::to_string(sandbox::output_bytes_per_row) + " a row of its input, and 1 MiB)";
    return run_verdict{verdict::output_cap_exceeded,
                       "the script wrote more than " + cap + " to stdout and stderr together"};
  }
  // Created, then removed by something other than this run: never a verdict against the script.
  if (done.vanished && !out.container_id.empty())
    return run_verdict{verdict::runtime_failed,
                       "the container vanished during the run (removed by something other than this run)"};
  if ((state && state->oom_killed) || out.usage.oom_kills > 0)
    return run_verdict{verdict::memory_exhausted,
                       "the sandbox ran out of its " + std::to_string(limits.memory_mib) + " MiB of memory"};
  if (!state || state->started_at.empty() || state->started_at.starts_with("0001-")) {
    if (state && !state->error.empty())
      return run_verdict{verdict::runtime_failed, "the container did not start: " + state->error};
    return run_verdict{verdict::runtime_failed, "docker run failed before the container started (client exit " +
                                                    std::to_string(out.client_exit_code) + ")"};
  }
  return judge_exit(done, limits);
}

}  // namespace plb::runner
