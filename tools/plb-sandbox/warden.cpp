// The warden's pure parts (which containers are overdue, its status line) and the client's ping.
#include "warden.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include "file_io.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "sweep.hpp"

namespace plb::tool {
namespace {

// Digits only, at most nine of them (wall times are bounded to an hour): nothing else is a deadline.
std::optional<std::int64_t> seconds_of(const std::string& label) noexcept {
  if (label.empty() || label.size() > 9) return std::nullopt;
  std::int64_t v = 0;
  for (char c : label) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
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

std::vector<overdue_container> overdue(const std::vector<labelled_container>& listed, std::int64_t now) {
  std::vector<overdue_container> out;
  for (const auto& c : listed) {
    const auto after = seconds_of(c.deadline_label);
    if (run_id_of(c.name, c.run_label).empty() || !after || c.created <= 0) continue;
    const std::int64_t past = now - (c.created + *after);
    if (past >= 0) out.push_back({c.name, past});
  }
  return out;
}

std::string render_warden_status(const warden_status& s) {
  return "plb-sandbox-warden pid=" + std::to_string(s.pid) + " last-pass-ms=" + std::to_string(s.last_pass_ms) +
         " removed=" + std::to_string(s.removed) + "\n";
}

std::optional<warden_status> parse_warden_status(const std::string& line) noexcept try {
  if (!line.starts_with("plb-sandbox-warden ") || line.size() > 256 || !line.ends_with("\n")) return std::nullopt;
  const auto pid = field(line, "pid");
  const auto age = field(line, "last-pass-ms");
  const auto removed = field(line, "removed");
  if (!pid || !age || !removed || *pid <= 0 || *age < -1 || *removed < 0) return std::nullopt;
  return warden_status{static_cast<long>(*pid), *age, static_cast<std::uint64_t>(*removed)};
} catch (...) {
  return std::nullopt;
}

std::optional<warden_status> ping_warden(const std::string& socket_path, std::chrono::milliseconds timeout,
                                         std::string& problem) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) {
    problem = "socket path too long";
    return std::nullopt;
  }
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval tv{static_cast<time_t>(timeout.count() / 1000),
                   static_cast<suseconds_t>(timeout.count() % 1000) * 1000};
  ::setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (!s || ::connect(s.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    problem = "no warden answers at " + socket_path + " (" + std::strerror(errno) + ")";
    return std::nullopt;
  }
  // Only root can have bound a socket in the root-only warden directory, but the peer is checked
  // anyway: a status is worth nothing from anyone else.
  ucred peer{};
  socklen_t len = sizeof peer;
  if (::getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != 0) {
    problem = "the process answering at " + socket_path + " is not root's";
    return std::nullopt;
  }
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
    problem = "the warden at " + socket_path + " did not answer within " + std::to_string(timeout.count()) +
              " ms with a status line";
  return status;
}

}  // namespace plb::tool
