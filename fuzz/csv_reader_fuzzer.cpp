// SPDX-License-Identifier: Apache-2.0
// Operator CSVs, careless or odd. Byte 0 picks the requested features among a, b, c (in an order
// the bits decide) and whether "id" (or, with byte 1's high bit, "a") is the ID column; byte 1 the
// chunk size. Properties: reading in chunks gives exactly what reading the whole buffer gives; a
// table is always well formed; every error has a message.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "plb/sandbox/csv_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static const char* names[] = {"a", "b", "c"};
  std::vector<std::string> features;
  for (int i = 0; i < 3; ++i)
    if (data[0] & (1 << i)) features.emplace_back(names[(i + (data[0] >> 4)) % 3]);
  if ((data[1] & 0x40) && !features.empty()) features.push_back(features.front());  // a repeat
  const std::string id = (data[0] & 8) ? ((data[1] & 0x80) ? "a" : "id") : "";
  const std::size_t chunk = 1 + data[1] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  plb::sandbox::csv_options o;
  o.max_values = 64;
  o.max_cell_bytes = 32;
  o.max_header_bytes = 512;  // a dozen names with their overhead
  o.max_id_bytes = 128;

  plb::sandbox::feature_table t;
  const auto a = plb::sandbox::read_features(text, features, id, t, o);
  FUZZ_CHECK(!plb::sandbox::message(a.error).empty());

  plb::sandbox::csv_feature_reader pieces(features, id, o);
  plb::sandbox::csv_result b;
  for (std::size_t i = 0; i < text.size() && b; i += chunk) b = pieces.feed(text.substr(i, chunk));
  if (b) b = pieces.finish();

  FUZZ_CHECK(a.error == b.error);
  FUZZ_CHECK(a.row == b.row && a.column == b.column && a.column_name == b.column_name);
  if (!a) {
    FUZZ_CHECK(t.values.empty());
    return 0;
  }
  const auto& u = pieces.table();
  FUZZ_CHECK(t.columns() == features.size());
  FUZZ_CHECK(t.values.size() == t.rows() * t.columns());
  FUZZ_CHECK(t.rows() >= 1);
  FUZZ_CHECK(t.values.size() <= o.max_values);
  FUZZ_CHECK(id.empty() ? t.ids.empty() : t.ids.size() == t.rows());
  FUZZ_CHECK(t.values.size() == u.values.size() && t.ids == u.ids);
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    FUZZ_CHECK(std::isfinite(t.values[i]));
    FUZZ_CHECK(std::bit_cast<std::uint64_t>(t.values[i]) == std::bit_cast<std::uint64_t>(u.values[i]));
  }
  return 0;
}
