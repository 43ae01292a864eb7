// SPDX-License-Identifier: Apache-2.0
// The warden's pure parts (which containers are overdue, its status line) and the client's ping.
#include "runner/host/warden.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ctime>

#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/container/sweep.hpp"
#include "support/file_io.hpp"
#include "support/unix_address.hpp"

namespace plb::runner {
namespace {

// The longest deadline any run can have: the start allowance's and the wall time's upper bounds
// (limits.hpp) + the grace.
constexpr std::int64_t longest_deadline() noexcept {
  using sandbox::limit_field;
  return static_cast<std::int64_t>(sandbox::info(limit_field::start_seconds).max +
                                   sandbox::info(limit_field::wall_seconds).max +
                                   sandbox::policy_constants::deadline_grace_seconds);
}
static_assert(longest_deadline() > static_cast<std::int64_t>(sandbox::policy_constants::probe_wall_seconds));

// Digits only; a value past the longest deadline is clamped to it, so no label buys more time.
std::optional<std::int64_t> seconds_of(const std::string& label) noexcept {
  if (label.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : label) {
    if (c < '0' || c > '9') return std::nullopt;
    v = std::min(v * 10 + (c - '0'), longest_deadline());
  }
  return v;
}

// The deadline label of one of the tool's own containers with a creation time; nullopt: not the warden's.
std::optional<std::int64_t> judged_label(const labelled_container& c) {
  if (run_id_of(c.name, c.run_label).empty() || c.created <= 0) return std::nullopt;
  return seconds_of(c.deadline_label);
}

// The value after "key=" in a space-separated status line.
std::optional<std::int64_t> field(const std::string& line, std::string_view key) noexcept {
  std::string needle(1, ' ');  // appended, not " " + key: GCC 12's -Wrestrict false positive (PR 105651)
  needle.append(key).push_back('=');
  const auto at = line.find(needle);
  if (at == std::string::npos) return std::nullopt;
  const char* first = line.data() + at + needle.size();
  const char* last = line.data() + line.size();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc{} || (end != last && *end != ' ' && *end != '\n')) return std::nullopt;
  return v;
}

}  // namespace

warden_clock read_warden_clock() noexcept {
  timespec wall{}, boot{};
  ::clock_gettime(CLOCK_REALTIME, &wall);
  ::clock_gettime(CLOCK_BOOTTIME, &boot);
  const auto ms = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000; };
  return {ms(wall), ms(boot)};
}

void first_sightings::note(const std::vector<labelled_container>& listed, std::int64_t monotonic_now_ms) {
  std::unordered_map<std::string, sighting> next;
  next.reserve(listed.size());
  for (const auto& c : listed) {
    const auto it = seen_.find(c.name);
    if (it != seen_.end() && it->second.created == c.created)
      next.emplace(c.name, it->second);
    else
      next.emplace(c.name, sighting{c.created, monotonic_now_ms, std::nullopt});
  }
  seen_ = std::move(next);
}

std::optional<std::int64_t> first_sightings::first_seen(const labelled_container& c) const {
  const auto it = seen_.find(c.name);
  if (it == seen_.end() || it->second.created != c.created) return std::nullopt;
  return it->second.at_ms;
}

void first_sightings::learn_creation(const labelled_container& c, std::int64_t created_ns) {
  const auto it = seen_.find(c.name);
  // The list cuts Created down to its second: an inspection outside that second is of another container.
  if (it == seen_.end() || it->second.created != c.created || created_ns / 1'000'000'000 != c.created) return;
  it->second.created_ms = creation_ms(created_ns);
}

bool first_sightings::creation_learnt(const labelled_container& c) const {
  const auto it = seen_.find(c.name);
  return it != seen_.end() && it->second.created == c.created && it->second.created_ms;
}

std::int64_t first_sightings::latest_creation_ms(const labelled_container& c) const {
  if (creation_learnt(c)) return *seen_.find(c.name)->second.created_ms;
  return (c.created + 1) * 1000;  // the list's second, cut down: created at the latest by its end
}

std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, warden_clock now,
                                       const first_sightings& seen) {
  std::vector<overdue_container> out;
  for (const auto& c : listed) {
    const auto after = judged_label(c);
    if (!after) continue;
    std::int64_t past = ms_past_deadline(seen.latest_creation_ms(c), *after, now.wall_ms);
    // First seen no earlier than created: this bound is the later one unless the wall clock stepped back.
    if (const auto first = seen.first_seen(c))
      past = std::max(past, ms_past_deadline(*first, *after, now.monotonic_ms));
    if (past >= 0) out.push_back({c.name, past});
  }
  return out;
}

std::vector<labelled_container> needing_exact_creation(const std::vector<labelled_container>& listed, warden_clock now,
                                                       const first_sightings& seen) {
  std::vector<labelled_container> out;
  for (const auto& c : listed) {
    const auto after = judged_label(c);
    if (!after || seen.creation_learnt(c)) continue;
    if (ms_past_deadline(c.created * 1000, *after, now.wall_ms) >= 0 &&
        ms_past_deadline(seen.latest_creation_ms(c), *after, now.wall_ms) < 0)
      out.push_back(c);
  }
  return out;
}

std::string list_failure_line(const engine_error& e) {
  switch (e.what) {
    case engine_error::kind::unreachable: return "the Docker daemon does not answer (" + e.message() + "); retrying";
    case engine_error::kind::unexpected_status:
      return "the Docker daemon refuses to list containers (" + e.message() + "); retrying";
    case engine_error::kind::bad_reply: break;
  }
  return "the Docker daemon's container list cannot be read (" + e.message() + "); retrying";
}

std::string render_warden_status(const warden_status& s) {
  return "plb-sandbox-warden pid=" + std::to_string(s.pid) + " last-pass-ms=" + std::to_string(s.last_pass_ms) +
         " removed=" + std::to_string(s.removed) + " stuck=" + std::to_string(s.stuck) +
         " supervisor=" + std::to_string(s.supervisor) + " log-failed=" + std::to_string(s.log_failed) + "\n";
}

std::optional<warden_status> parse_warden_status(const std::string& line) noexcept try {
  if (!line.starts_with("plb-sandbox-warden ") || line.size() > 256 || !line.ends_with("\n")) return std::nullopt;
  const auto pid = field(line, "pid");
  const auto age = field(line, "last-pass-ms");
  const auto removed = field(line, "removed");
  // A warden of an earlier build counts no stuck containers: absent reads as none.
  const auto stuck = line.find(" stuck=") == std::string::npos ? std::optional<std::int64_t>(0) : field(line, "stuck");
  // Nor of a supervisor: absent reads as none.
  const auto supervisor =
      line.find(" supervisor=") == std::string::npos ? std::optional<std::int64_t>(0) : field(line, "supervisor");
  // Nor of its log's failures.
  const auto log_failed =
      line.find(" log-failed=") == std::string::npos ? std::optional<std::int64_t>(0) : field(line, "log-failed");
  if (!pid || !age || !removed || !stuck || !supervisor || !log_failed || *pid <= 0 || *age < -1 || *removed < 0 ||
      *stuck < 0 || *supervisor < 0 || *log_failed < 0)
    return std::nullopt;
  return warden_status{static_cast<long>(*pid),
                       *age,
                       static_cast<std::uint64_t>(*removed),
                       static_cast<std::uint64_t>(*stuck),
                       static_cast<long>(*supervisor),
                       static_cast<std::uint64_t>(*log_failed)};
} catch (...) {
  return std::nullopt;
}

namespace {

const char* const start_warden_fix =
    "start it: systemctl enable --now plb-sandbox-warden (without systemd: plb-sandbox-setup-host, or "
    "/usr/share/plb-sandbox/start-warden /usr/bin/plb-sandbox)";

refusal no_warden(std::string detail) { return {std::move(detail), start_warden_fix}; }

}  // namespace

host_result<warden_status> ping_warden(const std::string& socket_path, std::chrono::milliseconds timeout) {
  const auto address = unix_address(socket_path);
  if (!address) return no_warden("socket path too long");
  const unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval tv{static_cast<time_t>(timeout.count() / 1000),
                   static_cast<suseconds_t>(timeout.count() % 1000) * 1000};
  ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (!s || ::connect(s.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0)
    return no_warden("no warden answers at " + socket_path + " (" + std::strerror(errno) + ")");
  // Only root can have bound a socket in the root-only warden directory, but the peer is checked
  // anyway: a status is worth nothing from anyone else.
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != 0)
    return no_warden("the process answering at " + socket_path + " is not root's");
  std::string line;
  char buf[256];
  while (line.size() < 256) {
    const ssize_t n = ::read(s.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    line.append(buf, static_cast<std::size_t>(n));
  }
  auto status = parse_warden_status(line);
  if (!status)
    return no_warden("the warden at " + socket_path + " did not answer within " + std::to_string(timeout.count()) +
                     " ms with a status line");
  status->pid = peer.pid;  // the kernel's word, not the line's: callers signal this PID
  return *status;
}

host_result<std::string> check_warden() {
  return judge_warden(ping_warden(warden_socket, std::chrono::milliseconds(2000)));
}

host_result<std::string> judge_warden(const host_result<warden_status>& answer) {
  if (!answer) return answer.error();
  const warden_status& status = *answer;
  const std::string who = "the warden (pid " + std::to_string(status.pid) + ")";
  const auto stale = std::chrono::duration_cast<std::chrono::milliseconds>(warden_stale).count();
  if (status.last_pass_ms < 0 || status.last_pass_ms > stale)
    return refusal{
        who + " has not reached the daemon for " +
            (status.last_pass_ms < 0 ? std::string("any pass yet") : std::to_string(status.last_pass_ms / 1000) + " s"),
        "see its log; restart it once dockerd answers"};
  if (status.stuck > 0)
    return refusal{who + " cannot remove " + std::to_string(status.stuck) + " container(s) " +
                       std::to_string(warden_stuck_seconds) + " s or more past their deadline",
                   "see its log and dockerd's; remove them by hand (docker rm -f) once the daemon can"};
  if (status.supervisor <= 0)
    return refusal{who + " runs unsupervised: nothing restarts it if it dies, and the runs it bounds would then run on",
                   "restart it supervised: /usr/share/plb-sandbox/start-warden /usr/bin/plb-sandbox (it runs "
                   "`plb-sandbox warden --supervise`), or systemctl restart plb-sandbox-warden"};
  return "pid " + std::to_string(status.pid) + " (supervisor pid " + std::to_string(status.supervisor) +
         "), last pass " + std::to_string(status.last_pass_ms) + " ms ago";
}

}  // namespace plb::runner
