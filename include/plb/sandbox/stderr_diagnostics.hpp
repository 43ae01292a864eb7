// SPDX-License-Identifier: Apache-2.0
// The operator's diagnostics file (opt-in: --keep-stderr): a bounded tail of the script's stderr,
// escaped so that it is safe in any terminal or editor. The spec discards stderr so that untrusted
// bytes never reach a message or a shareable artifact; this file is neither. It is written only
// when asked for, 0600, beside the outputs, and nothing of it is ever read back by the tool: no
// message, --json, summary, report, provenance or record holds its content, and no verdict rests
// on it. It can carry whatever the script chose to print (feature values, timing): the operator
// reviews it before passing anything of it on (README, "Privacy").
//
// Pure: a ring of the last bytes, and their rendering. Unit-tested in
// tests/unit/core/stderr_diagnostics_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "plb/sandbox/limits.hpp"

namespace plb::sandbox {

// The tail's bound, in KiB, with its default and bounds (limits.hpp keeps the run's limits; this
// one is not a limit of the sandbox, so the provenance's limits do not change with it). It lies
// inside the output cap: the drain keeps stderr only while the run's output is under the cap, and
// the largest tail is no larger than the smallest output_mib.
struct stderr_tail_bounds {
  static constexpr std::uint64_t default_kib = 64;
  static constexpr std::uint64_t min_kib = 1;
  static constexpr std::uint64_t max_kib = 1024;
  static constexpr std::string_view unit = "KiB";
};
inline constexpr std::uint64_t kib = 1024;

static_assert(stderr_tail_bounds::max_kib * kib <= bytes(info(limit_field::output_mib).min),
              "the stderr tail must fit inside the smallest output cap");

constexpr bool stderr_tail_in_bounds(std::uint64_t tail_kib) noexcept {
  return tail_kib >= stderr_tail_bounds::min_kib && tail_kib <= stderr_tail_bounds::max_kib;
}

// A rendered line holds at most this many characters before it is wrapped (escapes never split).
inline constexpr std::size_t diagnostics_line_chars = 1024;

// The last `capacity` bytes of a stream, in a ring: memory is the capacity, whatever arrives.
class stderr_tail {
 public:
  explicit stderr_tail(std::size_t capacity) : capacity_(capacity) { ring_.reserve(capacity); }

  void append(const char* data, std::size_t n) {
    seen_ += n;
    if (capacity_ == 0) return;
    if (n >= capacity_) {  // only the last `capacity` bytes of this piece can stay
      ring_.assign(data + (n - capacity_), capacity_);
      start_ = 0;
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (ring_.size() < capacity_) {
        ring_.push_back(data[i]);
      } else {
        ring_[start_] = data[i];
        start_ = (start_ + 1) % capacity_;
      }
    }
  }

  std::uint64_t seen() const noexcept { return seen_; }  // every byte offered, kept or not
  std::string bytes() const {                            // the kept tail, oldest first
    std::string out = ring_.substr(start_);
    out.append(ring_, 0, start_);
    return out;
  }

 private:
  std::size_t capacity_;
  std::string ring_;
  std::size_t start_ = 0;  // the oldest byte, once the ring is full
  std::uint64_t seen_ = 0;
};

// Untrusted bytes as text that is printable ASCII and newlines only: every other byte, and the
// backslash itself, as \xNN (lowercase hex), so the escapes are unambiguous. A line longer than
// `line_chars` characters is wrapped: its piece ends with a lone backslash (never otherwise at a
// line's end, a backslash being always escaped), and no escape is split.
inline std::string escape_diagnostics(std::string_view raw, std::size_t line_chars = diagnostics_line_chars) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() + raw.size() / 8);
  std::size_t column = 0;
  for (const char c : raw) {
    const auto b = static_cast<unsigned char>(c);
    if (b == '\n') {
      out += '\n';
      column = 0;
      continue;
    }
    const bool plain = b >= 0x20 && b <= 0x7e && b != '\\';
    const std::size_t width = plain ? 1 : 4;
    if (column > 0 && column + width + 1 > line_chars) {  // room for the continuation's backslash
      out += "\\\n";
      column = 0;
    }
    if (plain) {
      out += c;
    } else {
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 0xf];
    }
    column += width;
  }
  return out;
}

// The file's whole text: a header in the tool's own words (the verdict, how much arrived and how
// much is shown), then the escaped tail.
inline std::string render_diagnostics(const stderr_tail& tail, std::string_view verdict_name,
                                      std::string_view started_at) {
  const std::string kept = tail.bytes();
  std::string out =
      "# plb-sandbox diagnostics: the script's stderr, for the operator only; review it before "
      "passing anything of it on (it can hold feature values and timing)\n";
  out += "# run started ";
  out += started_at;
  out += ", verdict ";
  out += verdict_name;
  out += "; ";
  out += std::to_string(tail.seen());
  out += " bytes of stderr arrived within the output cap, the last ";
  out += std::to_string(kept.size());
  out += " shown; bytes outside printable ASCII as \\xNN, long lines wrapped with a trailing \\\n";
  out += escape_diagnostics(kept);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

// The most render_diagnostics writes for a tail of `tail_bytes`: the header within 1 KiB (its
// numbers and the verdict's name included), each byte escaped at its longest (4 characters), a
// wrap's two characters at most once every 256 of those (a wrapped line holds over 1,000), and the
// last newline. What the output-space check reserves for the diagnostics file.
constexpr std::uint64_t max_diagnostics_file_bytes(std::uint64_t tail_bytes) noexcept {
  const std::uint64_t escaped = 4 * tail_bytes;
  return 1024 + escaped + 2 * (escaped / 256 + 1) + 1;
}

}  // namespace plb::sandbox
