// SPDX-License-Identifier: Apache-2.0
#include "warden_log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>

namespace plb::cli {
namespace {

constexpr std::size_t backlog_bound = std::size_t{64} * 1024;

struct log_state {
  std::mutex m;
  std::string backlog;                   // whole lines the log refused, oldest first
  std::atomic<std::uint64_t> failed{0};  // lines refused when logged
  std::uint64_t dropped = 0;             // since the log last took lines
  std::uint64_t held = 0;                // likewise
  int last_errno = 0;
};

log_state& state() {
  static log_state s;
  return s;
}

std::string stamped(const std::string& text) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(stamp) + " plb-sandbox warden: " + text + "\n";
}

// Writes the backlog (a partial write keeps the rest for next time, so no line is cut in two for
// good); false: the log refused, its errno kept. Holds s.m.
bool flush(log_state& s) {
  while (!s.backlog.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, s.backlog.data(), s.backlog.size());
    if (n > 0) {
      s.backlog.erase(0, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    s.last_errno = n < 0 ? errno : EIO;
    return false;
  }
  return true;
}

// After a flush that emptied the backlog: says what the outage cost, once.
void say_recovered(log_state& s) {
  if (s.held == 0 && s.dropped == 0) return;
  s.backlog = stamped("the log refused " + std::to_string(s.held + s.dropped) + " line(s) (" +
                      std::strerror(s.last_errno) + "): " + std::to_string(s.held) + " held back and written above, " +
                      std::to_string(s.dropped) + " dropped past the 64 KiB backlog");
  s.held = s.dropped = 0;
  (void)flush(s);  // refused again: it waits like any line
}

}  // namespace

void log_line(const std::string& text) {
  log_state& s = state();
  const std::lock_guard lock(s.m);
  if (!s.backlog.empty() && flush(s)) say_recovered(s);  // what waited goes first, in order
  const std::string line = stamped(text);
  if (s.backlog.size() + line.size() > backlog_bound) {
    ++s.dropped;
    s.failed.fetch_add(1);
    return;
  }
  s.backlog += line;
  if (flush(s)) return;
  ++s.held;
  s.failed.fetch_add(1);
}

void retry_log() {
  log_state& s = state();
  const std::lock_guard lock(s.m);
  if (!s.backlog.empty() && flush(s)) say_recovered(s);
}

std::uint64_t log_lines_failed() noexcept { return state().failed.load(); }

}  // namespace plb::cli
