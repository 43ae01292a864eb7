// SPDX-License-Identifier: Apache-2.0
// The daemon's container list (GET /containers/json), which the sweep reads to decide what to
// remove: it never throws, refuses what it cannot read whole, and every container it does report
// has the name and run label the DOM sees (so the sweep's ownership test sees the same names).
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "runner/engine/engine_json.hpp"
#include "fuzz_check.hpp"

namespace {

// What the DOM says the container at `c` is called and labelled.
plb::runner::labelled_container from_dom(const boost::json::object& c) {
  plb::runner::labelled_container lc;
  lc.name = std::string(c.at("Names").get_array()[0].get_string());
  if (!lc.name.empty() && lc.name.front() == '/') lc.name.erase(0, 1);
  const auto* labels = c.if_contains("Labels");
  const auto* run = labels && labels->is_object() ? labels->get_object().if_contains("plb-sandbox.run") : nullptr;
  if (run && run->is_string()) lc.run_label = std::string(run->get_string());
  return lc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  const auto list = plb::runner::parse_container_list(s);
  if (!list) {
    FUZZ_CHECK(!list.error().detail.empty());
    return 0;
  }
  boost::json::error_code ec;
  const auto dom = boost::json::parse(boost::json::string_view(s.data(), s.size()), ec);
  FUZZ_CHECK(!ec && dom.is_array() && dom.get_array().size() == list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto want = from_dom(dom.get_array()[i].get_object());
    FUZZ_CHECK((*list)[i].name == want.name && (*list)[i].run_label == want.run_label);
  }
  return 0;
}
