// SPDX-License-Identifier: Apache-2.0
// The daemon's image inspection: the volume check must never be fooled into "no volumes" by a
// shape it does not understand; it either reads the answer or refuses it.
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "fuzz_check.hpp"
#include "runner/engine/engine_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  const auto facts = plb::runner::parse_image_inspect(s);
  FUZZ_CHECK(facts.has_value() || !facts.error().detail.empty());
  if (!facts) return 0;
  // Cross-check with the DOM: any non-empty Config.Volumes object means volumes.
  boost::json::error_code ec;
  const auto v = boost::json::parse(boost::json::string_view(s.data(), s.size()), ec);
  FUZZ_CHECK(!ec && v.is_object());
  const auto* config = v.get_object().if_contains("Config");
  if (config && config->is_object()) {
    const auto* vols = config->get_object().if_contains("Volumes");
    if (vols && vols->is_object() && !vols->get_object().empty()) FUZZ_CHECK(facts->has_volumes);
  }
  return 0;
}
