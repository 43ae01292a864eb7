// SPDX-License-Identifier: Apache-2.0
// The daemon's /info answer. A tampered or odd daemon is input too: no crash, no exception, and
// a refusal always says what was wrong.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "runner/engine/engine_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  const auto info = plb::runner::parse_daemon_info(s);
  FUZZ_CHECK(info.has_value() || !info.error().detail.empty());
  if (info) FUZZ_CHECK(!info->os_type.empty() || s.find("\"OSType\"") != std::string_view::npos);
  const auto state = plb::runner::parse_container_inspect(s);
  FUZZ_CHECK(state.has_value() || !state.error().detail.empty());
  return 0;
}
