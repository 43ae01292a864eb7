// SPDX-License-Identifier: Apache-2.0
// Small text helpers of the report's renderers: concatenation without temporaries (GCC 12's
// -Wrestrict false positive, PR 105651, trips on "lit" + std::string in Release) and numbers.
#pragma once

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

namespace plb::batch {

inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (const auto p : parts) n += p.size();
  std::string s;
  s.reserve(n);
  for (const auto p : parts) s.append(p);
  return s;
}

// A finite number with `decimals` digits after the point; "0" for anything else.
inline std::string num(double v, int decimals = 1) {
  char buf[400];  // any finite double fits in %.Nf for small N
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, std::isfinite(v) ? v : 0.0);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "0";
}

}  // namespace plb::batch
