// SPDX-License-Identifier: Apache-2.0
// Correctly rounded decimal-to-double conversion shared by the CSV reader and the predictions
// parser. std::from_chars (libstdc++ 12 and later) rounds correctly; Boost.JSON 1.81's own
// conversion does not, and strtod depends on the C locale.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace plb::sandbox::detail {

enum class decimal_status : std::uint8_t { ok, syntax, overflow };

struct decimal_value {
  double value = 0;
  decimal_status status = decimal_status::ok;
};

// Sign of the decimal exponent of a syntactically valid number whose conversion fell out of
// range: >= 0 means it overflowed, < 0 that it underflowed to zero.
constexpr bool magnitude_is_large(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  std::int64_t position = 0;  // decimal exponent of the first nonzero digit, before 'e'
  bool seen_nonzero = false, after_point = false;
  std::int64_t int_digits = 0, leading_fraction_zeros = 0;
  for (; i < n && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') {
      after_point = true;
      continue;
    }
    if (!seen_nonzero && s[i] == '0') {
      if (after_point) ++leading_fraction_zeros;
      continue;
    }
    if (!seen_nonzero) seen_nonzero = true;
    if (!after_point) ++int_digits;
  }
  position = int_digits > 0 ? int_digits - 1 : -(leading_fraction_zeros + 1);
  std::int64_t exponent = 0;
  bool negative = false;
  if (i < n) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    for (; i < n; ++i)
      if (exponent < 100'000'000) exponent = exponent * 10 + (s[i] - '0');  // clamp: huge is huge
  }
  if (int_digits > 100'000'000) position = 100'000'000;
  return position + (negative ? -exponent : exponent) >= 0;
}

// Converts text that is already a valid JSON number (the JSON parser has checked the grammar).
inline decimal_value convert_json_number(std::string_view s) noexcept {
  decimal_value out;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out.value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    if (magnitude_is_large(s)) return {0, decimal_status::overflow};
    return {std::copysign(0.0, s.front() == '-' ? -1.0 : 1.0), decimal_status::ok};  // as strtod
  }
  if (ec != std::errc{} || end != s.data() + s.size()) return {0, decimal_status::syntax};
  return out;
}

// Strict decimal text, as an operator's CSV holds it: [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?
// No spaces, no hex, no "inf" or "nan", no thousands separators. One pass: std::from_chars reads
// exactly this grammar once the first characters rule out its extensions (infinity, nan) and the
// '+' it does not take.
inline decimal_value parse_decimal(std::string_view s) noexcept {
  auto digit_or_point = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  if (s.empty()) return {0, decimal_status::syntax};
  std::string_view body = s;
  if (body.front() == '+' || body.front() == '-') {
    if (body.size() < 2 || !digit_or_point(body[1])) return {0, decimal_status::syntax};
    if (body.front() == '+') body.remove_prefix(1);
  } else if (!digit_or_point(body.front())) {
    return {0, decimal_status::syntax};
  }
  const std::size_t signs = body.front() == '-' ? 1 : 0;
  if (body.size() == signs + 1 && body[signs] == '.') return {0, decimal_status::syntax};
  // from_chars accepts "1." and ".5" as the grammar does; a lone "." fails it.
  return convert_json_number(body);
}

}  // namespace plb::sandbox::detail
