// SPDX-License-Identifier: Apache-2.0
// The warden: the host service that bounds every sandbox when no process of the tool is left.
//
// The tool's watchdog (docker_run) and its reaper (reaper.hpp) are the fast paths, but both are
// host processes of the tool: a cgroup-wide SIGKILL (a Slurm cancel under proctrack/cgroup, a
// systemd stop, a pod kill) takes them with the docker client, and the container, which lives in
// the daemon's cgroups, runs on. gVisor does not enforce RLIMIT_CPU, and a watchdog inside the
// sandbox can be frozen by the script, so the bound comes from here, as the kubelet and slurmd
// enforce the deadlines their clients only declare:
//   - every container of the tool carries its deadline, `plb-sandbox.expires-after=<start allowance
//     + wall + grace>` seconds after the daemon created it (sandbox_policy.hpp);
//   - the warden, started with dockerd (ci/host/setup-host, the package's systemd unit), lists the
//     tool's containers once a period (bounded however many there are and whatever their labels
//     carry: container_list_reader.hpp) and removes each one past its deadline, running or not,
//     whatever became of the run that created it, each removal on a thread of its own so that no
//     slow one holds up another (warden_removals.hpp). It retries every period until the daemon
//     confirms, and logs one line per container on stderr, a removal whose answer was lost too
//     (unconfirmed_removals.hpp);
//   - the deadline is also kept by the monotonic clock: a container is due at the earlier of
//     creation + label (the daemon's wall clock) and first seen + label (this host's boot-time
//     clock, which no clock step moves), so stepping the wall clock back postpones nothing;
//   - both in milliseconds, never before the instant: the list's Created is whole seconds, so a
//     container within a second of its deadline is inspected once for its Created to the nanosecond;
//   - a supervisor (`warden --supervise`, warden_supervisor.cpp) restarts a warden that dies, and
//     a warden whose supervisor dies becomes the supervisor of a new warden: only both killed at
//     once stop the bound (then systemd's unit, or the operator, restarts them);
//   - it answers a status line on a unix socket, and the preflight and doctor refuse a host whose
//     warden does not answer, or answers unsupervised (host_checks_daemon.cpp).
// So no sandbox lives past creation + start allowance + wall + grace + one period + the daemon's
// removal time.
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
// The supervisor asks its warden's status once a second, each answer awaited this long, and kills
// and restarts a warden that has answered none for warden_unanswered (SIGSTOPped, hung): alive,
// it would hold the lock and the socket and bound nothing (issue 41 item 5).
inline constexpr std::chrono::milliseconds warden_answer_timeout{1000};
inline constexpr std::chrono::seconds warden_unanswered{5};

struct overdue_container {
  std::string name;
  std::int64_t ms_past = 0;  // how long past its deadline, by whichever clock says longer
};

// Both clocks at one instant, in milliseconds: the wall clock (Unix time, the daemon's `Created`)
// and a monotonic one (CLOCK_BOOTTIME: not moved by any clock step, counting suspended time).
struct warden_clock {
  std::int64_t wall_ms = 0;
  std::int64_t monotonic_ms = 0;
};
warden_clock read_warden_clock() noexcept;

// The decision itself, in milliseconds (issue 41 item 7: whole seconds removed a container at 44.3 s
// of its 45 s label): how long `now_ms` is past `created_ms` + `after_seconds`; negative before it.
// `created_ms` is the creation rounded up, so a deadline is never met before creation + label.
constexpr std::int64_t ms_past_deadline(std::int64_t created_ms, std::int64_t after_seconds,
                                        std::int64_t now_ms) noexcept {
  return now_ms - (created_ms + after_seconds * 1000);
}
// Docker's Created to the nanosecond (an inspection's), as the decision takes it: rounded up.
constexpr std::int64_t creation_ms(std::int64_t created_ns) noexcept { return (created_ns + 999'999) / 1'000'000; }

// When the warden first saw each listed container, by the monotonic clock, and its creation to
// the millisecond once an inspection said it (the list's `Created` is whole seconds, cut down).
// Holds only what the last pass listed (so no more than the list's bound); a container whose
// creation time changed under the same name is a new one.
class first_sightings {
 public:
  void note(const std::vector<labelled_container>& listed, std::int64_t monotonic_now_ms);
  std::optional<std::int64_t> first_seen(const labelled_container& c) const;
  // From an inspection of `c` (its Created, in ns); ignored unless it falls in the listed second.
  void learn_creation(const labelled_container& c, std::int64_t created_ns);
  bool creation_learnt(const labelled_container& c) const;
  // The creation in ms, rounded up: the inspection's once learnt, else the end of the listed second.
  std::int64_t latest_creation_ms(const labelled_container& c) const;
  std::size_t size() const noexcept { return seen_.size(); }

 private:
  struct sighting {
    std::int64_t created = 0;  // the list's, in seconds
    std::int64_t at_ms = 0;
    std::optional<std::int64_t> created_ms;  // an inspection's
  };
  std::unordered_map<std::string, sighting> seen_;
};

// The tool's containers (name and run label agree) whose deadline has passed at `now`: the
// earlier of creation + label (wall) and first seen + label (monotonic), each to the millisecond and
// never before its instant. A container without a deadline label of digits is not the warden's to
// judge; a label past the longest wall time + grace counts as that (no run may be given longer).
std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, warden_clock now,
                                       const first_sightings& seen);

// The containers whose creation the warden should inspect this pass: due if created at the start
// of their listed second, not yet if at its end, and not yet learnt. Without it a container would
// be removed up to a second past its deadline; with it, at the pass after its deadline.
std::vector<labelled_container> needing_exact_creation(const std::vector<labelled_container>& listed, warden_clock now,
                                                       const first_sightings& seen);

// The log line of a pass whose list failed: the real cause, not "the daemon does not answer"
// for an answer the daemon did give.
std::string list_failure_line(const engine_error& e);

// A container this long past its deadline and still there means the warden cannot remove it
// (the daemon refuses, or runsc hangs on the kill): no new run is admitted then.
inline constexpr std::int64_t warden_stuck_seconds = 30;
inline constexpr std::int64_t warden_stuck_ms = warden_stuck_seconds * 1000;

// What a warden answers: "plb-sandbox-warden pid=<n> last-pass-ms=<n> removed=<n> stuck=<n>
// supervisor=<n> log-failed=<n>".
struct warden_status {
  long pid = 0;                    // ping_warden replaces it with the peer's, from the kernel
  std::int64_t last_pass_ms = -1;  // age of the last complete pass; -1: none yet
  std::uint64_t removed = 0;
  std::uint64_t stuck = 0;       // containers still there warden_stuck_seconds past their deadline
  long supervisor = 0;           // the PID that restarts it if it dies; 0: none (an earlier build's too)
  std::uint64_t log_failed = 0;  // log lines its log refused when written (a full disk): held back or dropped
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
