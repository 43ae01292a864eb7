// SPDX-License-Identifier: Apache-2.0
#include "runner/container/container_run.hpp"

#include "runner/container/watchdog_weight.hpp"
#include "support/failure.hpp"
#include "support/test_hold.hpp"

namespace plb::runner {

container_run::container_run(const docker_engine& engine, std::string name, std::chrono::milliseconds bound)
    : engine_(engine), name_(std::move(name)), reaper_(engine.socket_path(), name_, bound) {}

container_run::~container_run() {
  if (removed_) return;
  if (!launched_) {  // no client ever reached the daemon, so no container can carry the name
    client_.reset();
    reaper_.release();
    return;
  }
  try {
    remove_container(engine_, name_);
    reaper_.release();
  } catch (...) {  // already failing: the first error is the one reported; the reaper keeps trying
  }
}

void container_run::launch(docker_run_request request) {
  request.container_name = name_;
  request.watcher = &reaper_;
  client_.emplace(request, engine_);
}

completed_run container_run::run(std::string_view stdin_data, cgroup_monitor& monitor,
                                 std::optional<std::size_t> output_cap) {
  if (!client_) fail(sandbox::verdict::internal_error, "container_run::run before launch");
  completed_run done;
  launched_ = true;
  {
    // The watchdog (this thread, and the killer thread it starts) outweighs the runs while they
    // run: a kill lands on time however busy they are (watchdog_weight.hpp).
    const watchdog_weight weight;
    done.outcome = client_->run(stdin_data, monitor, output_cap);
  }
  hold_at(hold_stage::reaped);
  done.daemon_lost = done.outcome.daemon_lost;
  try {
    try {
      if (done.daemon_lost) await_daemon(engine_, name_);  // it may be restarting
      done.state = inspect_container(engine_, name_);
    } catch (const failure&) {  // the daemon went away as the run ended: wait for it once
      done.daemon_lost = true;
      await_daemon(engine_, name_);
      done.state = inspect_container(engine_, name_);
    }
    const docker_run_outcome& out = done.outcome;
    done.times = times_of(out.gate_opened_unix_ns, out.seen_start_unix_ns, out.seen_script,
                          done.state ? done.state->started_ns : std::nullopt,
                          done.state ? done.state->finished_ns : std::nullopt);
    const bool removed_here = remove_container(engine_, name_);
    removed_ = true;
    reaper_.release();
    done.vanished = !done.state || done.state->status == "removing" || done.state->status == "dead" || !removed_here;
  } catch (const failure& f) {  // the reaper keeps trying; the judge reports it
    done.removal = problem::says(f.what());
    removed_ = true;  // no second attempt from the destructor: the first error is the one reported
  }
  return done;
}

}  // namespace plb::runner
