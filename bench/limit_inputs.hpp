// SPDX-License-Identifier: Apache-2.0
// The limit-size inputs the benchmarks and the end-to-end memory check share: 1,000,000 feature
// values (500,000 rows x 2 features, plus an ID and two columns that are not selected) and
// 1,000,000 predictions. Deterministic, so every run measures the same bytes.
#pragma once

#include <charconv>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace plb::bench {

inline constexpr std::size_t limit_rows = 500'000;
inline constexpr std::size_t limit_predictions = 1'000'000;

inline std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 1000.0);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// id,feature_a,target,feature_b,note with shortest round-trip numbers, as pandas would write them.
inline std::string limit_csv() {
  const auto a = random_values(limit_rows, 1), b = random_values(limit_rows, 2), t = random_values(limit_rows, 3);
  std::string s = "id,feature_a,target,feature_b,note\n";
  s.reserve(limit_rows * 72);
  char buf[32];
  auto num = [&](double v) {
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
  };
  for (std::size_t i = 0; i < limit_rows; ++i) {
    s += "s-" + std::to_string(i) + ',';
    num(a[i]);
    s += ',';
    num(t[i]);
    s += ',';
    num(b[i]);
    s += i % 7 == 0 ? ",\"quoted, note\"\n" : ",plain\n";
  }
  return s;
}

// {"predictions": [...]} as Python's json.dumps prints it (", " separators, repr floats).
inline std::string limit_predictions_json() {
  const auto p = random_values(limit_predictions, 4);
  std::string s = "{\"predictions\": [";
  s.reserve(limit_predictions * 22);
  char buf[32];
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i) s += ", ";
    const auto r = std::to_chars(buf, buf + sizeof buf, p[i]);
    s.append(buf, r.ptr);
  }
  s += "]}\n";
  return s;
}

}  // namespace plb::bench
