// SPDX-License-Identifier: Apache-2.0
// One way to run a container to completion, for the scoring run and the preflight's gVisor probe
// alike: a reaper armed before anything starts, the watchdog run, inspection while the container
// still exists, and removal confirmed by the daemon on every way out (exceptions included).
#pragma once

#include <optional>
#include <string>

#include "runner/container/container_cleanup.hpp"
#include "runner/container/docker_run.hpp"
#include "runner/container/reaper.hpp"
#include "runner/container/run_clock.hpp"
#include "support/problem.hpp"

namespace plb::runner {

struct completed_run {
  docker_run_outcome outcome;
  std::optional<container_state> state;  // nullopt: never created, or removed by someone else
  bool daemon_lost = false;              // the daemon stopped answering during or right after the run
  // Removed by something other than this run: gone or being removed when inspected, or already
  // gone when this run came to remove it.
  bool vanished = false;
  result<void> removal;  // confirmed by the daemon, or why not (the container may remain)
  run_times times;       // start-up and the script's own time (run_clock.hpp)
};

class container_run {
 public:
  // Starts the reaper for `name`, which will enforce `bound` (+ grace): the run's start allowance
  // and its wall time together. Construct it as soon as the name is known.
  container_run(const docker_engine& engine, std::string name, std::chrono::milliseconds bound);
  // Removes the container if run() did not get that far (best effort: the first error stands);
  // before run(), only kills a launched client and releases the reaper: the gate never opened, so
  // nothing can have been created under the name.
  ~container_run();
  container_run(const container_run&) = delete;
  container_run& operator=(const container_run&) = delete;

  const std::string& name() const noexcept { return name_; }

  // Launches the docker client for `request` (its container name is set to name()), held at its
  // engine gate: call it before the preflight, whose time the client's start-up then overlaps.
  void launch(docker_run_request request);
  // Runs the launched client with `stdin_data`, inspects and removes the container. A removal that
  // cannot be confirmed is recorded in `removal`, for the judge. `output_cap`, when given,
  // replaces the launched request's (sandbox::output_cap_bytes: it grows with the input's rows).
  completed_run run(std::string_view stdin_data, cgroup_monitor& monitor,
                    std::optional<std::size_t> output_cap = std::nullopt);

 private:
  const docker_engine& engine_;
  std::string name_;
  reaper reaper_;
  std::optional<docker_client> client_;  // after the reaper: killed before the reaper is released
  bool removed_ = false;
  bool launched_ = false;  // run() was called: the gate opened, so the client may have created it
};

}  // namespace plb::runner
