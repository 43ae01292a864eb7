// SPDX-License-Identifier: Apache-2.0
// A `.sandbox.json` as `plb-sandbox verify` and the batch report read it: edited or forged, it is
// hostile input. Properties: a refusal hands out a message, points inside the input and names a
// field for every field-level error; an accepted record is one the tool could have written (every
// limit within its bounds, printable runtime strings), and rendering it and reading that back
// gives the same rendering (the reader is the exact inverse of render_json).
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "plb/sandbox/provenance_reader.hpp"

namespace sb = plb::sandbox;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const sb::provenance_read r = sb::parse_provenance(text);
  FUZZ_CHECK(!sb::message(r.error).empty());
  if (!r) {
    FUZZ_CHECK(r.offset <= text.size());
    const bool document_level =
        r.error == sb::provenance_error::too_large || r.error == sb::provenance_error::not_json ||
        r.error == sb::provenance_error::duplicate_key || r.error == sb::provenance_error::not_an_object;
    FUZZ_CHECK(document_level || !r.field.empty());
    return 0;
  }
  FUZZ_CHECK(!sb::validate(r.record.limits));
  for (const std::string* s : {&r.record.runtime_release, &r.record.runtime_platform, &r.record.runtime_name})
    for (const char c : *s) FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
  const std::string once = sb::render_json(r.record);
  const sb::provenance_read again = sb::parse_provenance(once);
  FUZZ_CHECK(static_cast<bool>(again));
  FUZZ_CHECK(sb::render_json(again.record) == once);
  FUZZ_CHECK(again.record.limits == r.record.limits && again.record.features == r.record.features);
  return 0;
}
