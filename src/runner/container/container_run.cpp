// SPDX-License-Identifier: Apache-2.0
#include "runner/container/container_run.hpp"

#include "support/failure.hpp"

namespace plb::runner {

container_run::container_run(const docker_engine& engine, std::string name, std::chrono::milliseconds wall)
    : engine_(engine), name_(std::move(name)), reaper_(engine.socket_path(), name_, wall) {}

container_run::~container_run() {
  if (removed_) return;
  if (!launched_) {  // no client was ever given the name, so no container can carry it
    reaper_.release();
    return;
  }
  try {
    remove_container(engine_, name_);
    reaper_.release();
  } catch (...) {  // already failing: the first error is the one reported; the reaper keeps trying
  }
}

completed_run container_run::run(docker_run_request request, cgroup_monitor& monitor) {
  request.container_name = name_;
  request.watcher = &reaper_;
  completed_run done;
  launched_ = true;
  done.outcome = run_docker(request, engine_, monitor);
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
    const bool removed_here = remove_container(engine_, name_);
    removed_ = true;
    reaper_.release();
    done.vanished = !done.state || done.state->status == "removing" || done.state->status == "dead" || !removed_here;
  } catch (const failure& f) {  // the reaper keeps trying; the judge reports it
    done.cleanup_problem = f.what();
    removed_ = true;  // no second attempt from the destructor: the first error is the one reported
  }
  return done;
}

}  // namespace plb::runner
