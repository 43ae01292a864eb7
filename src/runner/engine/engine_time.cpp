// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/engine_time.hpp"

#include <limits>

namespace plb::runner {
namespace {

// `n` digits at `at`, or -1.
std::int64_t digits(std::string_view s, std::size_t at, std::size_t n) noexcept {
  if (at + n > s.size()) return -1;
  std::int64_t v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
constexpr std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}
static_assert(days_from_civil(1970, 1, 1) == 0 && days_from_civil(2000, 3, 1) == 11017);

bool leap(std::int64_t y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

std::int64_t days_in_month(std::int64_t y, std::int64_t m) noexcept {
  constexpr std::int64_t days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

}  // namespace

std::optional<std::int64_t> parse_engine_time(std::string_view s) noexcept {
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z or +HH:MM / -HH:MM.
  const std::int64_t year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const std::int64_t hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') return std::nullopt;
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
      second < 0 || second > 59 || day > days_in_month(year, month))
    return std::nullopt;
  if (year == 1) return std::nullopt;  // Go's zero time: the event has not happened
  std::size_t at = 19;
  std::int64_t nanos = 0;
  if (s[at] == '.') {
    std::size_t n = 0;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++n) {
      if (n < 9) nanos = nanos * 10 + (s[at] - '0');
    }
    if (n == 0 || n > 9) return std::nullopt;
    for (; n < 9; ++n) nanos *= 10;
  }
  std::int64_t offset_seconds = 0;
  if (at + 1 == s.size() && s[at] == 'Z') {
  } else if (at + 6 == s.size() && (s[at] == '+' || s[at] == '-') && s[at + 3] == ':') {
    const std::int64_t oh = digits(s, at + 1, 2), om = digits(s, at + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return std::nullopt;
    offset_seconds = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  const std::int64_t seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  // Nanoseconds since the epoch fit an int64 only until 2262: a later (or far earlier) time is no
  // time the daemon recorded for this run.
  constexpr std::int64_t most_seconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
  if (seconds > most_seconds || seconds < -most_seconds) return std::nullopt;
  return seconds * 1'000'000'000 + nanos;
}

}  // namespace plb::runner
