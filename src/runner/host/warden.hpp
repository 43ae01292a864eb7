// SPDX-License-Identifier: Apache-2.0
// The warden: the host service that bounds every sandbox when no process of the tool is left.
//
// The tool's watchdog (docker_run) and its reaper (reaper.hpp) are the fast paths, but both are
// host processes of the tool: a cgroup-wide SIGKILL (a Slurm cancel under proctrack/cgroup, a
// systemd stop, a pod kill) takes them with the docker client, and the container, which lives in
// the daemon's cgroups, runs on. gVisor does not enforce RLIMIT_CPU, and a watchdog inside the
// sandbox can be frozen by the script, so the bound comes from here, as the kubelet and slurmd
// enforce the deadlines their clients only declare:
//   - every container of the tool carries its deadline, `plb-sandbox.expires-after=<wall + grace>`
//     seconds after the daemon created it (sandbox_policy.hpp);
//   - the warden, started with dockerd (ci/host/setup-host, the package's systemd unit), lists the
//     tool's containers once a period (bounded however many there are and whatever their labels
//     carry: container_list_reader.hpp) and removes each one past its deadline, running or not,
//     whatever became of the run that created it. It retries every period until the daemon
//     confirms, and logs one line per container on stderr;
//   - the deadline is also kept by the monotonic clock: a container is due at the earlier of
//     creation + label (the daemon's wall clock) and first seen + label (this host's boot-time
//     clock, which no clock step moves), so stepping the wall clock back postpones nothing;
//   - a supervisor (`warden --supervise`, warden_supervisor.cpp) restarts a warden that dies, and
//     a warden whose supervisor dies becomes the supervisor of a new warden: only both killed at
//     once stop the bound (then systemd's unit, or the operator, restarts them);
//   - it answers a status line on a unix socket, and the preflight and doctor refuse a host whose
//     warden does not answer, or answers unsupervised (host_checks_daemon.cpp).
// So no sandbox lives past creation + wall + grace + one period + the daemon's removal time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runner/engine/engine_json.hpp"

#include "runner/state/refusal.hpp"

namespace plb::runner {

inline constexpr const char* warden_dir = "/run/plb-sandbox";
inline constexpr const char* warden_socket = "/run/plb-sandbox/warden.sock";
inline constexpr std::chrono::milliseconds warden_period{1000};
// A warden whose last pass over the daemon is older than this is stuck: the host is refused.
inline constexpr std::chrono::seconds warden_stale{10};

struct overdue_container {
  std::string name;
  std::int64_t seconds_past = 0;  // how long past its deadline, by whichever clock says longer
};

// Both clocks at one instant, in seconds: the wall clock (Unix time, the daemon's `Created`) and a
// monotonic one (CLOCK_BOOTTIME: not moved by any clock step, counting suspended time).
struct warden_clock {
  std::int64_t wall = 0;
  std::int64_t monotonic = 0;
};
warden_clock read_warden_clock() noexcept;

// When the warden first saw each listed container, by the monotonic clock. Holds only what the
// last pass listed (so no more than the list's bound); a container whose creation time changed
// under the same name is a new one.
class first_sightings {
 public:
  void note(const std::vector<labelled_container>& listed, std::int64_t monotonic_now);
  std::optional<std::int64_t> first_seen(const labelled_container& c) const;
  std::size_t size() const noexcept { return seen_.size(); }

 private:
  struct sighting {
    std::int64_t created = 0;
    std::int64_t at = 0;
  };
  std::unordered_map<std::string, sighting> seen_;
};

// The tool's containers (name and run label agree) whose deadline has passed at `now`: the
// earlier of creation + label (wall) and first seen + label (monotonic). A container without a
// deadline label of digits is not the warden's to judge; a label past the longest wall time +
// grace counts as that (no run may be given longer).
std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, warden_clock now,
                                       const first_sightings& seen);

// The log line of a pass whose list failed: the real cause, not "the daemon does not answer"
// for an answer the daemon did give.
std::string list_failure_line(const engine_error& e);

// A container this long past its deadline and still there means the warden cannot remove it
// (the daemon refuses, or runsc hangs on the kill): no new run is admitted then.
inline constexpr std::int64_t warden_stuck_seconds = 30;

// What a warden answers: "plb-sandbox-warden pid=<n> last-pass-ms=<n> removed=<n> stuck=<n>
// supervisor=<n>".
struct warden_status {
  long pid = 0;                    // ping_warden replaces it with the peer's, from the kernel
  std::int64_t last_pass_ms = -1;  // age of the last complete pass; -1: none yet
  std::uint64_t removed = 0;
  std::uint64_t stuck = 0;  // containers still there warden_stuck_seconds past their deadline
  long supervisor = 0;      // the PID that restarts it if it dies; 0: none (an earlier build's too)
};
std::string render_warden_status(const warden_status& s);
std::optional<warden_status> parse_warden_status(const std::string& line) noexcept;

// Asks the warden at `socket_path` for its status, within `timeout`; refused (with the fix that
// starts one) when nothing answers, the answer is malformed, or the peer is not root.
host_result<warden_status> ping_warden(const std::string& socket_path, std::chrono::milliseconds timeout);

// The preflight's question: the warden answers, is current and removes what it must (the value
// says so in a line), or what is wrong and the fix. Every run asks it, a batch's lines included.
host_result<std::string> check_warden();
// The same judgement of a status already asked for.
host_result<std::string> judge_warden(const host_result<warden_status>& status);

}  // namespace plb::runner
