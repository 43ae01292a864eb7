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

// Strict decimal grammar: [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?  — no spaces, no hex, no
// "inf"/"nan", no thousands separators.
constexpr bool is_decimal_number(std::string_view s) noexcept {
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto digit = [&](std::size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t mantissa_digits = 0;
  while (digit(i)) ++i, ++mantissa_digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (digit(i)) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  return i == n;
}

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
    if (s[i] == '.') { after_point = true; continue; }
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

// Converts a number already known to match is_decimal_number (or JSON's number grammar, a subset).
inline decimal_value convert_decimal(std::string_view s) noexcept {
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // from_chars takes no '+'
  decimal_value out;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), out.value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    if (magnitude_is_large(s)) return {0, decimal_status::overflow};
    return {std::copysign(0.0, s.front() == '-' ? -1.0 : 1.0), decimal_status::ok};  // as strtod
  }
  if (ec != std::errc{} || end != digits.data() + digits.size()) return {0, decimal_status::syntax};
  if (!std::isfinite(out.value)) return {0, decimal_status::overflow};
  return out;
}

}  // namespace plb::sandbox::detail
