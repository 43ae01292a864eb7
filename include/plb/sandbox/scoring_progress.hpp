// SPDX-License-Identifier: Apache-2.0
// What a run reports while its sandbox runs. The runner's API (runner.hpp) hands it to the
// caller's on_progress; the runner's watchdog fills it while the container runs.
// A header of its own so that the container's room speaks it without including the runner's API.
#pragma once

namespace plb::sandbox {

// Reported about every 200 ms while the sandbox runs, from the calling thread.
struct scoring_progress {
  double elapsed_seconds = 0;  // the script's own time: since its container started (0 before)
  double wall_seconds = 0;     // the wall-time limit, which that time is held to
  bool starting = false;       // the container is being created and started (the host's time)
  bool stopping = false;       // the sandbox is being stopped (limit, output cap or stop request)
};

}  // namespace plb::sandbox
