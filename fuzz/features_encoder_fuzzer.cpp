// SPDX-License-Identifier: Apache-2.0
// Encode, read back, compare bit for bit. Byte 0 picks the column count (1..8), the chunk size and
// (high bit) a byte limit just below the exact size; the rest is read as raw doubles. Non-finite
// values and a document over the limit must be refused with nothing written.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "oracle/strict_json.hpp"
#include "plb/sandbox/features_encoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t columns = 1 + (data[0] & 7);
  std::vector<double> values((size - 1) / 8);
  if (!values.empty()) std::memcpy(values.data(), data + 1, values.size() * 8);
  values.resize(values.size() - values.size() % columns);
  bool finite = true;
  for (double v : values) finite &= std::isfinite(v);

  plb::sandbox::encode_options o;
  o.chunk_bytes = 40 + ((data[0] >> 3) & 15) * 16;
  // High bit: a limit one byte below the exact size, which must be refused before any output.
  const bool tight = (data[0] & 0x80) && finite && !values.empty();
  if (tight) o.max_bytes = plb::sandbox::encoded_size(values, columns).bytes - 1;
  std::string doc;
  std::size_t calls = 0;
  const auto r = plb::sandbox::encode_features(
      values, columns,
      [&](std::string_view s) {
        ++calls;
        FUZZ_CHECK(s.size() <= std::max(o.chunk_bytes, plb::sandbox::encode_options::min_chunk_bytes));
        doc.append(s);
        return true;
      },
      o);
  FUZZ_CHECK(!plb::sandbox::message(r.error).empty());
  if (!finite || tight) {
    FUZZ_CHECK(r.error ==
               (tight ? plb::sandbox::encode_error::too_large : plb::sandbox::encode_error::nonfinite_value));
    FUZZ_CHECK(calls == 0);
    if (tight) FUZZ_CHECK(r.bytes == o.max_bytes + 1);
    return 0;
  }
  std::string whole;
  FUZZ_CHECK(plb::sandbox::encode_features_to_string(values, columns, whole, o) && whole == doc);
  FUZZ_CHECK(r);
  FUZZ_CHECK(r.bytes == doc.size());
  plb::oracle::json_node root;
  FUZZ_CHECK(plb::oracle::strict_json::parse(doc, root));
  FUZZ_CHECK(root.keys.size() == 1 && root.keys[0] == "features");
  const auto& rows = root.values[0].items;
  FUZZ_CHECK(rows.size() == values.size() / columns);
  std::size_t i = 0;
  for (const auto& row : rows) {
    FUZZ_CHECK(row.items.size() == columns);
    for (const auto& cell : row.items) {
      // Python must read a float: a point or an exponent in every number.
      FUZZ_CHECK(cell.text.find_first_of(".e") != std::string::npos);
      const double back = std::strtod(cell.text.c_str(), nullptr);
      FUZZ_CHECK(std::bit_cast<std::uint64_t>(back) == std::bit_cast<std::uint64_t>(values[i]));
      ++i;
    }
  }
  return 0;
}
