// SPDX-License-Identifier: Apache-2.0
// Limit values as the CLI receives them (--seconds, --memory-mb, and every other field for API
// callers). Byte 0 picks the field. Accepted exactly when the text is the canonical decimal form
// of a value within the field's bounds; such a value on top of the defaults validates, unless
// validate()'s one rule across fields refuses it (every guest process must be able to run busy).
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "plb/sandbox/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto& info = plb::sandbox::limit_table[data[0] % plb::sandbox::limit_table.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto r = plb::sandbox::parse_limit(info.field, text);
  bool canonical = !text.empty() && text.size() <= 19 && (text.size() == 1 || text[0] != '0');
  for (char c : text) canonical &= c >= '0' && c <= '9';
  const bool reference =
      canonical && std::stoull(std::string(text)) >= info.min && std::stoull(std::string(text)) <= info.max;
  FUZZ_CHECK(static_cast<bool>(r) == reference);
  FUZZ_CHECK(r.offset <= text.size());
  if (r) {
    FUZZ_CHECK(std::to_string(r.value) == text);
    plb::sandbox::SandboxLimits l;
    l.*(info.member) = r.value;
    FUZZ_CHECK(plb::sandbox::validate(l).has_value() == !plb::sandbox::busy_processes_fit(l));
  }
  return 0;
}
