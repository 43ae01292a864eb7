// SPDX-License-Identifier: Apache-2.0
// Encodes the feature matrix as the script's stdin document, {"features":[[...],...]}.
//
// Each value is written as the shortest text that reads back to the same double (std::to_chars),
// with ".0" appended when that text has neither a point nor an exponent: Python's json module
// turns "-0" and "5" into ints, which would lose -0.0 and change the type the script sees.
// The exact size is computed first, so an oversized document is refused before a byte is written.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "plb/sandbox/limits.hpp"

namespace plb::sandbox {

enum class encode_error : std::uint8_t {
  ok,
  nonfinite_value,
  shape_mismatch,  // values.size() is not rows * columns
  no_columns,
  too_large,    // the document would pass max_bytes
  sink_failed,  // the sink refused a chunk (the reader went away)
};

constexpr std::string_view message(encode_error e) noexcept {
  switch (e) {
    case encode_error::ok: return "ok";
    case encode_error::nonfinite_value: return "non-finite feature value";
    case encode_error::shape_mismatch: return "value count is not rows times columns";
    case encode_error::no_columns: return "no feature columns";
    case encode_error::too_large: return "encoded input larger than its limit";
    case encode_error::sink_failed: return "the reader stopped taking input";
  }
  return "unknown error";
}

struct encode_options {
  std::size_t max_bytes = bytes(SandboxLimits{}.input_json_mib);  // the limits' default
  std::size_t chunk_bytes = 64u << 10;                            // clamped to [min_chunk_bytes, 64 KiB]
  static constexpr std::size_t min_chunk_bytes = 64;              // room for the longest number and its comma
};

struct encode_result {
  encode_error error = encode_error::ok;
  std::size_t bytes = 0;  // document size (or, on too_large, the size it would have had)
  std::size_t index = 0;  // value index of a nonfinite_value
  explicit operator bool() const noexcept { return error == encode_error::ok; }
};

namespace detail {
// Longest output of to_chars for a double ("-2.2250738585072014e-308") plus ".0".
inline constexpr std::size_t max_number_chars = 32;

inline std::size_t format_feature(double v, char* out) noexcept {
  const auto r = std::to_chars(out, out + max_number_chars - 2, v);
  std::size_t n = static_cast<std::size_t>(r.ptr - out);
  // Only a whole number can come out without a point or an exponent.
  if (v != std::floor(v)) return n;
  bool has_mark = false;
  for (std::size_t i = 0; i < n; ++i) has_mark |= (out[i] == '.' || out[i] == 'e');
  if (!has_mark) {
    out[n++] = '.';
    out[n++] = '0';
  }
  return n;
}
}  // namespace detail

// Exact byte size of the document, or the first non-finite value.
inline encode_result encoded_size(std::span<const double> values, std::size_t columns) noexcept {
  if (columns == 0) return {encode_error::no_columns, 0, 0};
  if (values.size() % columns != 0) return {encode_error::shape_mismatch, 0, 0};
  const std::size_t rows = values.size() / columns;
  constexpr std::string_view open = "{\"features\":[", close = "]}";
  // per row "[" + "]" ; commas: (columns - 1) per row, (rows - 1) between rows
  std::size_t n = open.size() + close.size() + rows * 2 + rows * (columns - 1) + (rows ? rows - 1 : 0);
  char buf[detail::max_number_chars];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) return {encode_error::nonfinite_value, 0, i};
    n += detail::format_feature(values[i], buf);
  }
  return {encode_error::ok, n, 0};
}

// The most bytes the document can take: every number at its longest. Cheap, and enough to
// admit almost every input without formatting it twice.
inline std::size_t encoded_size_bound(std::size_t values, std::size_t columns) noexcept {
  const std::size_t rows = columns ? values / columns : 0;
  return 16 + rows * 3 + values * (detail::max_number_chars + 1);
}

// Streams the document into sink(std::string_view) -> bool in chunks of options.chunk_bytes; a
// false from the sink stops the encoding. Nothing is written when a check fails: every value is
// checked first, and the exact size is computed first whenever the bound alone could pass
// max_bytes.
template <class Sink>
encode_result encode_features(std::span<const double> values, std::size_t columns, Sink&& sink,
                              const encode_options& options = {}) noexcept(noexcept(sink(std::string_view{}))) {
  if (columns == 0) return {encode_error::no_columns, 0, 0};
  if (values.size() % columns != 0) return {encode_error::shape_mismatch, 0, 0};
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) return {encode_error::nonfinite_value, 0, i};
  if (encoded_size_bound(values.size(), columns) > options.max_bytes) {
    const encode_result size = encoded_size(values, columns);
    if (size.bytes > options.max_bytes) return {encode_error::too_large, size.bytes, 0};
  }
  std::size_t total = 0;
  std::array<char, 64u << 10> buffer;  // NOLINT: filled before use
  const std::size_t limit = std::clamp(options.chunk_bytes, encode_options::min_chunk_bytes, buffer.size());
  std::size_t used = 0;
  bool sink_ok = true;
  auto flush = [&] {
    if (used && sink_ok) sink_ok = sink(std::string_view(buffer.data(), used));
    total += used;
    used = 0;
  };
  auto put = [&](std::string_view s) {
    if (used + s.size() > limit) flush();
    std::memcpy(buffer.data() + used, s.data(), s.size());
    used += s.size();
  };
  put("{\"features\":[");
  const std::size_t rows = values.size() / columns;
  for (std::size_t r = 0; r < rows && sink_ok; ++r) {
    put(r == 0 ? "[" : ",[");
    for (std::size_t c = 0; c < columns; ++c) {
      if (used + detail::max_number_chars + 1 > limit) flush();
      if (c) buffer[used++] = ',';
      used += detail::format_feature(values[r * columns + c], buffer.data() + used);
    }
    put("]");
  }
  put("]}");
  flush();
  if (!sink_ok) return {encode_error::sink_failed, total, 0};
  return {encode_error::ok, total, 0};
}

// The whole document as one string, for tests and small inputs.
inline encode_result encode_features_to_string(std::span<const double> values, std::size_t columns, std::string& out,
                                               const encode_options& options = {}) {
  out.clear();
  return encode_features(
      values, columns,
      [&](std::string_view s) {
        out.append(s);
        return true;
      },
      options);
}

}  // namespace plb::sandbox
