// The daemon's container list (GET /containers/json), which the sweep reads to decide what to
// remove: it never throws, refuses what it cannot read whole, and every container it does report
// has the name and run label the DOM sees (so the sweep's ownership test sees the same names).
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "engine_json.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  std::string problem;
  const auto list = plb::tool::parse_container_list(s, problem);
  FUZZ_CHECK(list.has_value() || !problem.empty());
  if (!list) return 0;
  boost::json::error_code ec;
  const auto v = boost::json::parse(boost::json::string_view(s.data(), s.size()), ec);
  FUZZ_CHECK(!ec && v.is_array() && v.get_array().size() == list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& c = v.get_array()[i].get_object();
    std::string name(c.at("Names").get_array()[0].get_string());
    if (!name.empty() && name.front() == '/') name.erase(0, 1);
    FUZZ_CHECK((*list)[i].name == name);
    const auto* labels = c.if_contains("Labels");
    const auto* run = labels && labels->is_object() ? labels->get_object().if_contains("plb-sandbox.run") : nullptr;
    FUZZ_CHECK((*list)[i].run_label == (run && run->is_string() ? std::string(run->get_string()) : std::string()));
  }
  return 0;
}
