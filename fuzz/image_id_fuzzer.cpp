// SPDX-License-Identifier: Apache-2.0
// --runtime-image as an operator might mistype it. Accepted exactly when it is "sha256:" plus 64
// lowercase hex digits, and then kept byte for byte.
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "plb/sandbox/image_id.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  const auto r = plb::sandbox::parse_image_id(s);
  bool reference = s.size() == 71 && s.substr(0, 7) == "sha256:";
  for (std::size_t i = 7; reference && i < s.size(); ++i)
    reference = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
  FUZZ_CHECK(static_cast<bool>(r) == reference);
  FUZZ_CHECK(r.offset <= s.size());
  if (r)
    FUZZ_CHECK(r.id && r.id->str() == s);
  else
    FUZZ_CHECK(!r.id && !plb::sandbox::message(r.error).empty());
  return 0;
}
