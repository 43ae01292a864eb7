// SPDX-License-Identifier: Apache-2.0
// Two predictions CSVs, row by row: both are local files, so comparing them discloses nothing.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "runner/score/verify.hpp"

namespace plb::runner {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The prediction after the row's last comma; nullopt when it is not a finite number.
std::optional<double> value_of(std::string_view row) {
  const std::size_t comma = row.rfind(',');
  const std::string_view v = comma == std::string_view::npos ? row : row.substr(comma + 1);
  double d = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace

predictions_comparison compare_predictions(std::string_view original, std::string_view rerun) {
  predictions_comparison c;
  c.identical = original == rerun;
  const auto a = lines_of(original), b = lines_of(rerun);
  // Line 0 is the header on both sides; rows are the lines after it.
  c.rows = b.size() > 1 ? b.size() - 1 : 0;
  const std::size_t common = std::min(a.size(), b.size());
  for (std::size_t i = 1; i < common; ++i) {
    if (a[i] == b[i]) continue;
    ++c.differing_rows;
    const auto x = value_of(a[i]), y = value_of(b[i]);
    const double d = x && y ? std::fabs(*x - *y) : std::numeric_limits<double>::infinity();
    c.max_abs_difference = std::max(c.max_abs_difference, d);
  }
  const std::size_t longer = std::max(a.size(), b.size()), compared = std::max<std::size_t>(common, 1);
  c.differing_rows += longer > compared ? longer - compared : 0;
  if (!a.empty() && !b.empty() && a[0] != b[0]) c.max_abs_difference = std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace plb::runner
