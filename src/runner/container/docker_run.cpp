// SPDX-License-Identifier: Apache-2.0
#include "runner/container/docker_run.hpp"

#include <sys/wait.h>

#include <array>
#include <memory>
#include <optional>

#include <boost/asio.hpp>
#include <boost/process/v2.hpp>

#include "runner/engine/call_budget.hpp"
#include "support/child_process.hpp"
#include "runner/container/container_killer.hpp"
#include "runner/container/cpu_allocator.hpp"
#include "runner/container/daemon_watch.hpp"
#include "runner/container/engine_gate.hpp"
#include "support/failure.hpp"

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
        killer_(e, r.container_name) {
    launch();
  }

  docker_run_outcome run(std::string_view stdin_data, cgroup_monitor& monitor) {
    monitor_ = &monitor;
    if (!process_) return std::move(outcome_);  // start_problem says why
    bp::basic_process<asio::io_context::executor_type>& proc = *process_;
    // The reaper's deadline is armed before the gate opens, so no moment in which the client can
    // reach the daemon is outside it.
    if (request_.watcher) request_.watcher->start(std::chrono::duration_cast<std::chrono::milliseconds>(request_.wall));
    start_ = clock::now();
    gate_.open(proc.id());

    stdin_data_ = stdin_data;
    asio::async_write(stdin_, asio::buffer(stdin_data_.data(), stdin_data_.size()),
                      [this](bp::error_code, std::size_t) {
                        bp::error_code ignore;
                        stdin_.close(ignore);  // EOF for the script; EPIPE when it never read
                      });
    read(stdout_, true);
    read(stderr_, false);
    deadline_.expires_after(request_.wall);
    deadline_.async_wait([this](bp::error_code e) {
      if (e) return;
      outcome_.timed_out = true;
      kill_container();
    });
    // The first sample waits a period: asking for a container the client cannot yet have made is a 404.
    schedule_sample();
    proc.async_wait([this](bp::error_code, int) { client_done(); });
    ctx_.run();
    gate_.close();
    killer_.stop();
    // A reaper that died while this process was stopped was never sampled: the run still rested on
    // this process alone.
    if (request_.watcher && !request_.watcher->alive()) outcome_.reaper_lost = true;

    const int status = proc.native_exit_code();
    if (WIFEXITED(status)) {
      outcome_.client_exited = true;
      outcome_.client_exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      outcome_.client_signal = WTERMSIG(status);
    }
    outcome_.elapsed = clock::now() - start_;
    // A run that lasted past its wall time timed out, even when the client's exit was seen before
    // the deadline's handler (a tool that was stopped and resumed sees both at once).
    if (outcome_.elapsed >= request_.wall && !outcome_.output_cap_exceeded && !outcome_.interrupted_by)
      outcome_.timed_out = true;
    monitor_->sample();
    outcome_.usage = monitor_->usage();
    return std::move(outcome_);
  }

 private:
  // The client starts with the gate closed (engine_gate.hpp): it loads while the caller's
  // preflight runs, and reaches the daemon only from run() on. The reaper knows its PID at once:
  // should this process die now, the reaper ends a client that could have asked nothing.
  void launch() {
    const std::vector<std::string> environment = docker_client_environment(request_.private_config_dir);
    std::vector<const char*> envp;
    envp.reserve(environment.size() + 1);
    for (const auto& v : environment) envp.push_back(v.c_str());
    envp.push_back(nullptr);
    bp::posix::default_launcher launcher;
    launcher.env = envp.data();
    const cpu_set_t cpus = cpu_mask(request_.client_cpus);
    child_setup setup;
    if (CPU_COUNT(&cpus) > 0) setup.cpus = &cpus;
    bp::error_code ec;
    auto proc = launcher(ctx_, ec, bp::filesystem::path(docker_binary), request_.arguments,
                         bp::process_stdio{stdin_, stdout_, stderr_}, setup);
    if (ec) {
      outcome_.start_problem = "cannot start " + std::string(docker_binary) + ": " + ec.message();
      return;
    }
    process_.emplace(std::move(proc));
    if (request_.watcher) request_.watcher->watch_client(process_->id());
  }

  void read(asio::readable_pipe& pipe, bool keep) {
    pipe.async_read_some(asio::buffer(buffer(keep)), [this, &pipe, keep](bp::error_code e, std::size_t n) {
      if (n) take(keep, n);
      if (e) {
        bp::error_code ignore;
        pipe.close(ignore);
        return;
      }
      read(pipe, keep);
    });
  }

  std::array<char, 65536>& buffer(bool keep) { return keep ? out_buffer_ : err_buffer_; }

  void take(bool keep, std::size_t n) {
    outcome_.output_bytes += n;
    if (outcome_.output_bytes > request_.output_cap_bytes) {
      if (!outcome_.output_cap_exceeded) {
        outcome_.output_cap_exceeded = true;
        outcome_.stdout_bytes.clear();  // never used once the cap is passed
        kill_container();
      }
      return;  // keep draining, keep nothing
    }
    if (keep) outcome_.stdout_bytes.append(out_buffer_.data(), n);
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
    if (!monitor_->attached()) {
      if (const auto st = sampling_engine_.inspect_container(request_.container_name); st && *st) {
        outcome_.container_id = (*st)->id;
        monitor_->attach((*st)->id);
      }
    }
    if (daemon_.due(++samples_) && daemon_.lost(sampling_engine_.ping().has_value(), clock::now()))
      outcome_.daemon_lost = true;  // no answer for daemon_watch's whole deadline, not one slow ping
    monitor_->sample();
    report_progress();
    schedule_sample();
    // A client still alive five seconds after the kill began is killed itself.
    if (first_kill_ && !client_exited_ && clock::now() - *first_kill_ > std::chrono::seconds(5) && process_) {
      bp::error_code ignore;
      process_->terminate(ignore);
    }
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
    if (!request_.on_progress || samples_ % 2 != 0) return;
    sandbox::scoring_progress p;
    p.elapsed_seconds = std::chrono::duration<double>(clock::now() - start_).count();
    p.wall_seconds = std::chrono::duration<double>(request_.wall).count();
    p.stopping = first_kill_.has_value();
    request_.on_progress(p);
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
  std::array<char, 65536> out_buffer_{}, err_buffer_{};
  // After the context and the pipes, so it goes before them: a client never run is killed and
  // reaped there (Boost.Process's destructor). It never reached the daemon.
  std::optional<bp::basic_process<asio::io_context::executor_type>> process_;
  clock::time_point start_;
  std::optional<clock::time_point> first_kill_;
  bool client_exited_ = false;
  docker_run_outcome outcome_;
  container_killer killer_;
};

docker_client::docker_client(const docker_run_request& request, const docker_engine& engine)
    : run_(std::make_unique<watchdog_run>(request, engine)) {}

docker_client::~docker_client() = default;

docker_run_outcome docker_client::run(std::string_view stdin_data, cgroup_monitor& monitor) {
  const sigpipe_blocked quiet;
  return run_->run(stdin_data, monitor);
}

std::vector<std::string> docker_client_environment(const std::string& private_config_dir) {
  return {
      "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
      "DOCKER_HOST=unix://" + engine_gate_path(private_config_dir),
      "DOCKER_CONFIG=" + private_config_dir,
      "DOCKER_CLI_HINTS=false",
      "LANG=C",
  };
}

}  // namespace plb::runner
