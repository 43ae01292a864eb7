// SPDX-License-Identifier: Apache-2.0
// Runs one `docker run` client under Boost.Process with the sandbox's watchdog:
//   - it is launched first, held at its engine gate (engine_gate.hpp) while the caller's preflight
//     runs, and reaches the daemon only from run() on; from there the container has its start
//     allowance, and once it has started, the wall time (run_clock.hpp: the script's own run);
//   - stdin gets the features document; a script that never reads it neither hangs nor kills us;
//   - stdout and stderr are drained together under one byte cap; stderr is discarded unread (or
//     its bounded tail kept, when asked for) and stdout is kept only up to the cap, then discarded too while the client
//     keeps being drained (an undrained client stalls and makes `docker rm -f` hang);
//   - a deadline, the cap, or a stop request (cancellation) kill the container through the Engine
//     API; the reaper (reaper.hpp) is told when the client starts, so the container's life stays
//     bounded even if this process dies;
//   - the container's cgroup is sampled while it runs.
// Removing the container is the caller's job (see container_cleanup.hpp), after it has inspected it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/scoring_progress.hpp"
#include "plb/sandbox/stderr_diagnostics.hpp"
#include "runner/container/cgroup_monitor.hpp"
#include "runner/container/client_launch.hpp"
#include "runner/container/reaper.hpp"
#include "runner/engine/docker_engine.hpp"
#include "support/cancellation.hpp"
#include "support/problem.hpp"

namespace plb::runner {

struct docker_run_request {
  std::vector<std::string> arguments;  // from the sandbox policy: "run", ...
  std::string container_name;
  std::chrono::milliseconds wall{std::chrono::seconds(sandbox::SandboxLimits{}.wall_seconds)};
  std::chrono::milliseconds start_allowance{std::chrono::seconds(sandbox::SandboxLimits{}.start_seconds)};
  std::size_t output_cap_bytes = sandbox::bytes(sandbox::SandboxLimits{}.output_mib);
  std::size_t stderr_tail_bytes = 0;  // --keep-stderr's tail (stderr_diagnostics.hpp); 0: stderr is dropped
  std::string private_config_dir;     // the client's DOCKER_CONFIG, root's and 0700; its engine gate listens there
  std::string client_cpus;            // the run's --cpuset-cpus list: the client runs on those CPUs too ("": anywhere)
  std::function<void(const sandbox::scoring_progress&)> on_progress;  // every 200 ms; may be empty
  const cancellation* cancel = nullptr;                               // polled while the container runs
  reaper* watcher = nullptr;  // told the client's PID and the deadline, then the tighter one once started
};

struct docker_run_outcome {
  bool client_exited = false;
  int client_exit_code = -1;  // valid when client_exited
  int client_signal = 0;      // the client died by this signal
  // The watchdog stopped the script at its wall time's end: the container was still running then,
  // by the daemon's word (a container the daemon had already seen exit is the client's lateness),
  // or the daemon did not say. When it sent the kill, by the host's clock (judge.cpp weighs it).
  bool timed_out = false;
  std::int64_t timed_out_unix_ns = 0;
  // The daemon saw the container exit within its wall time, but its client, ended five seconds
  // after that, never reported it: the host's lateness, with no exit status seen.
  bool client_ended_late = false;
  bool start_timed_out = false;  // the container did not start within its start allowance
  bool output_cap_exceeded = false;
  int interrupted_by = 0;                           // the signal of a stop request honoured during the run
  result<void> client_start;                        // the docker client started, or why it could not at all
  bool daemon_lost = false;                         // the daemon stopped answering during the run
  bool reaper_lost = false;                         // the run's reaper died: the run was stopped
  std::string stdout_bytes;                         // untrusted: parse it, never print it
  std::optional<sandbox::stderr_tail> stderr_tail;  // only when asked for; untrusted: never a message
  std::size_t output_bytes = 0;                     // stdout and stderr together, all that arrived
  std::string container_id;                         // once the daemon had created it
  std::chrono::duration<double> elapsed{};          // the client's life from the gate's opening
  // The run's clock as the watchdog saw it (run_clock.hpp): when the gate opened, when the daemon
  // said the container started (nullopt: not seen), and the script's time at the client's exit,
  // which lags the container's own exit by the daemon's and the client's work (judge.cpp weighs it).
  std::int64_t gate_opened_unix_ns = 0;
  std::optional<std::int64_t> seen_start_unix_ns;
  std::chrono::duration<double> seen_script{};
  bool seen_past_wall = false;  // seen_script reached the wall time (a stopped or starved tool)
  cgroup_usage usage;
};

class watchdog_run;

// One docker client: launched by the constructor with its gate closed, run to its end by run().
// A client destroyed before run() is killed and reaped; it never reached the daemon.
class docker_client {
 public:
  // Throws failure(internal_error) when the gate cannot listen; a client that cannot be started
  // is reported by run() (client_start).
  docker_client(const docker_run_request& request, const docker_engine& engine);
  ~docker_client();
  docker_client(const docker_client&) = delete;
  docker_client& operator=(const docker_client&) = delete;

  // Opens the gate, writes `stdin_data` (which must live until run() returns) and watches the run.
  // Once only. `output_cap`, when given, replaces the request's (known only with the input's rows).
  docker_run_outcome run(std::string_view stdin_data, cgroup_monitor& monitor,
                         std::optional<std::size_t> output_cap = std::nullopt);

 private:
  std::unique_ptr<watchdog_run> run_;
};

}  // namespace plb::runner
