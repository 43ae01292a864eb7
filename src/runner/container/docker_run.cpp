// SPDX-License-Identifier: Apache-2.0
#include "runner/container/docker_run.hpp"

#include <sys/wait.h>

#include <memory>
#include <optional>

#include <boost/asio.hpp>
#include <boost/process/v2.hpp>

#include "runner/container/client_launch.hpp"
#include "runner/container/container_killer.hpp"
#include "runner/container/daemon_watch.hpp"
#include "runner/container/engine_gate.hpp"
#include "runner/container/output_drain.hpp"
#include "runner/container/run_clock.hpp"
#include "runner/engine/call_budget.hpp"
#include "support/child_process.hpp"
#include "support/failure.hpp"
#include "support/test_hold.hpp"

namespace plb::runner {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using clock = std::chrono::steady_clock;

class watchdog_run {
 public:
  watchdog_run(const docker_run_request& r, const docker_engine& e)
      : request_(r),
        sampling_engine_(e.socket_path(), std::chrono::seconds(2)),
        gate_(engine_gate_path(r.private_config_dir), e.socket_path()),
        deadline_(ctx_),
        sampler_(ctx_),
        stdin_(ctx_),
        stdout_(ctx_),
        stderr_(ctx_),
        output_(r.output_cap_bytes, r.stderr_tail_bytes, [this] { kill_container(); }),
        killer_(e, r.container_name) {
    launch();
  }

  docker_run_outcome run(std::string_view stdin_data, cgroup_monitor& monitor, std::optional<std::size_t> output_cap) {
    monitor_ = &monitor;
    if (output_cap) output_.set_cap(*output_cap);
    if (!process_) return std::move(outcome_);  // client_start says why
    bp::basic_process<asio::io_context::executor_type>& proc = *process_;
    // The reaper's deadline is armed before the gate opens, so no moment in which the client can
    // reach the daemon is outside it: the start allowance and the wall time, until the start is known.
    if (request_.watcher) request_.watcher->start(request_.start_allowance + request_.wall);
    start_ = clock::now();
    outcome_.gate_opened_unix_ns = unix_now_ns();
    clock_.emplace(request_.start_allowance, request_.wall, start_, outcome_.gate_opened_unix_ns);
    gate_.open(proc.id());

    stdin_data_ = stdin_data;
    asio::async_write(stdin_, asio::buffer(stdin_data_.data(), stdin_data_.size()),
                      [this](bp::error_code, std::size_t) {
                        bp::error_code ignore;
                        stdin_.close(ignore);  // EOF for the script; EPIPE when it never read
                      });
    output_.start(stdout_, stderr_);
    arm_deadline();
    // The first sample waits a period: asking for a container the client cannot yet have made is a 404.
    schedule_sample();
    proc.async_wait([this](bp::error_code, int) { client_done(); });
    ctx_.run();
    gate_.close();
    killer_.stop();
    // A reaper that died while this process was stopped was never sampled: the run rested on us alone.
    if (request_.watcher && !request_.watcher->alive()) outcome_.reaper_lost = true;

    const int status = proc.native_exit_code();
    if (WIFEXITED(status)) {
      outcome_.client_exited = true;
      outcome_.client_exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      outcome_.client_signal = WTERMSIG(status);
    }
    const clock::time_point ended = clock::now();
    outcome_.output_cap_exceeded = output_.cap_exceeded();
    outcome_.output_bytes = output_.bytes();
    outcome_.stdout_bytes = output_.take_stdout();
    outcome_.stderr_tail = output_.take_stderr_tail();
    outcome_.elapsed = ended - start_;
    outcome_.seen_start_unix_ns = clock_->started_unix_ns();
    outcome_.seen_script = clock_->script_elapsed(ended);
    // A start past its allowance stands even when the client's exit came first (a tool stopped and
    // resumed sees both); a past-wall view is the judge's to weigh against the daemon's record.
    if (clock_->started_late()) outcome_.start_timed_out = true;
    outcome_.seen_past_wall = !outcome_.start_timed_out && outcome_.seen_script >= request_.wall;
    monitor_->sample();
    outcome_.usage = monitor_->usage();
    return std::move(outcome_);
  }

 private:
  // The client starts with the gate closed (engine_gate.hpp): it loads while the caller's
  // preflight runs, and reaches the daemon only from run() on. The reaper knows its PID at once:
  // should this process die now, the reaper ends a client that could have asked nothing.
  void launch() {
    auto proc = launch_client(ctx_, request_.arguments, request_.private_config_dir, request_.client_cpus,
                              {stdin_, stdout_, stderr_});
    if (!proc) {
      outcome_.client_start = proc.error();
      return;
    }
    process_.emplace(std::move(*proc));
    if (request_.watcher) request_.watcher->watch_client(process_->id());
  }

  void client_done() {
    client_exited_ = true;
    bp::error_code ignore;
    deadline_.cancel();
    sampler_.cancel();
    stdin_.close(ignore);
  }

  // Samples the cgroup every 100 ms; the first samples also learn the container's ID, and every
  // fifth asks whether the daemon still answers (every one while a ping is unanswered: see
  // daemon_watch.hpp). Each sample also honours a stop request and checks that the reaper lives.
  // Short timeouts: this thread also drains output.
  void sample() {
    if (request_.cancel && request_.cancel->signal() && !outcome_.interrupted_by) {
      outcome_.interrupted_by = request_.cancel->signal();
      kill_container();
    }
    // Without its reaper the run would rest on this process alone: stop it (never the script's fault).
    if (request_.watcher && !request_.watcher->alive() && !outcome_.reaper_lost) {
      outcome_.reaper_lost = true;
      kill_container();
    }
    if (!monitor_->attached() || (!clock_->start_known() && samples_ % budget::start_look_samples == 0)) look();
    if (daemon_.due(++samples_) && daemon_.lost(sampling_engine_.ping().has_value(), clock::now()))
      outcome_.daemon_lost = true;  // no answer for daemon_watch's whole deadline, not one slow ping
    monitor_->sample();
    report_progress();
    schedule_sample();
    // A client alive five seconds after the kill began, or after the daemon saw the exit, is killed.
    const std::optional<clock::time_point> grace_from = first_kill_ ? first_kill_ : exit_seen_;
    if (grace_from && !client_exited_ && clock::now() - *grace_from > std::chrono::seconds(5) && process_) {
      outcome_.client_ended_late = !first_kill_;
      bp::error_code ignore;
      process_->terminate(ignore);
    }
  }

  // The deadline of the run's clock: the start allowance's end, then the wall time's.
  void arm_deadline() {
    deadline_.expires_at(clock_->deadline());
    deadline_.async_wait([this](bp::error_code e) {
      if (e) return;
      if (!clock_->start_known()) look();  // one last look before the start counts as late
      if (outcome_.start_timed_out || first_kill_ || exit_seen_) return;
      if (clock_->start_known() && clock::now() < clock_->deadline()) return arm_deadline();  // it started in time
      if (clock_->start_known() && exited_in_time()) return;  // the client is late, not the script
      (clock_->start_known() ? outcome_.timed_out : outcome_.start_timed_out) = true;
      outcome_.timed_out_unix_ns = unix_now_ns();
      kill_container();
    });
  }

  // At the wall time's end with the client still running: did the daemon see the exit in time
  // (run_clock.hpp)? Then nothing is killed; the late client gets the kill's grace (sample()).
  bool exited_in_time() {
    const auto st = sampling_engine_.inspect_container(request_.container_name);
    if (!st || !*st || (*st)->running || !clock_->ended_in_time((*st)->finished_ns)) return false;
    exit_seen_ = clock::now();
    return true;
  }

  // Inspects the container: its ID for the cgroup monitor, and its start for the run's clock. Once
  // the start is known the deadline becomes start + wall, and the reaper's too (tighter than the
  // allowance it was armed with); a start past the allowance ends the run (runtime_failed).
  void look() {
    const auto st = sampling_engine_.inspect_container(request_.container_name);
    if (!st || !*st) return;
    if (!monitor_->attached()) {
      outcome_.container_id = (*st)->id;
      monitor_->attach((*st)->id);
    }
    if (clock_->start_known() || !(*st)->started_ns) return;
    clock_->started(*(*st)->started_ns);
    if (clock_->started_late()) {
      outcome_.start_timed_out = true;
      kill_container();
      return;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(clock_->deadline() - clock::now());
    if (request_.watcher) request_.watcher->start(std::max(left, std::chrono::milliseconds::zero()));
    arm_deadline();
    hold_at(hold_stage::started);
  }

  void schedule_sample() {
    sampler_.expires_after(budget::sample_period);
    sampler_.async_wait([this](bp::error_code e) {
      if (!e && !client_exited_) sample();
    });
  }

  void kill_container() {
    if (!first_kill_) first_kill_ = clock::now();
    killer_.request();
  }

  void report_progress() {
    if (request_.on_progress && samples_ % 2 == 0)
      request_.on_progress(clock_->progress(clock::now(), first_kill_.has_value()));
  }

  const docker_run_request request_;
  const docker_engine sampling_engine_;
  cgroup_monitor* monitor_ = nullptr;
  engine_gate gate_;
  std::string_view stdin_data_;
  unsigned samples_ = 0;
  daemon_watch daemon_;
  asio::io_context ctx_;
  asio::steady_timer deadline_, sampler_;
  asio::writable_pipe stdin_;
  asio::readable_pipe stdout_, stderr_;
  // After the context and the pipes, so it goes before them: a client never run is killed and
  // reaped there (Boost.Process's destructor). It never reached the daemon.
  std::optional<client_process> process_;
  clock::time_point start_;
  std::optional<run_clock> clock_;  // from the gate's opening
  std::optional<clock::time_point> first_kill_;
  std::optional<clock::time_point> exit_seen_;  // the daemon said the container exited in time (exited_in_time)
  bool client_exited_ = false;
  docker_run_outcome outcome_;
  output_drain output_;
  container_killer killer_;
};

docker_client::docker_client(const docker_run_request& request, const docker_engine& engine)
    : run_(std::make_unique<watchdog_run>(request, engine)) {}

docker_client::~docker_client() = default;

docker_run_outcome docker_client::run(std::string_view stdin_data, cgroup_monitor& monitor,
                                      std::optional<std::size_t> output_cap) {
  const sigpipe_blocked quiet;
  return run_->run(stdin_data, monitor, output_cap);
}

}  // namespace plb::runner
