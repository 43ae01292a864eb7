// SPDX-License-Identifier: Apache-2.0
// The daemon's container list (GET /containers/json), which the sweep and the warden read to
// decide what to remove, as the client reads it: streamed in pieces (their size from the first
// byte) through container_list_reader with a small bound. It never throws, refuses what the DOM
// cannot read whole, and keeps exactly what the DOM says each container is called and labelled,
// cut to the reader's bounds; past the bound it keeps the tool's own (the first due first), then
// the oldest.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <boost/json.hpp>

#include "fuzz_check.hpp"
#include "runner/engine/container_list_reader.hpp"
#include "runner/engine/engine_json.hpp"

namespace {

namespace json = boost::json;

constexpr std::size_t bound = 4;

std::string cut(std::string_view s, std::size_t n) { return std::string(s.substr(0, n)); }

// What the DOM says the container at `c` is called and labelled, cut to the reader's bounds.
plb::runner::labelled_container from_dom(const json::object& c) {
  plb::runner::labelled_container lc;
  lc.name = cut(c.at("Names").get_array()[0].get_string(), plb::runner::max_name_bytes);
  if (!lc.name.empty() && lc.name.front() == '/') lc.name.erase(0, 1);
  const auto* labels = c.if_contains("Labels");
  const auto label = [&](const char* key, std::size_t n) {
    const auto* v = labels && labels->is_object() ? labels->get_object().if_contains(key) : nullptr;
    return v && v->is_string() ? cut(v->get_string(), n) : std::string();
  };
  lc.run_label = label("plb-sandbox.run", plb::runner::max_run_label_bytes);
  lc.deadline_label = label("plb-sandbox.expires-after", plb::runner::max_deadline_label_bytes);
  const auto* t = c.if_contains("Created");
  lc.created = t && t->is_int64() ? t->get_int64() : 0;
  return lc;
}

bool agree(const plb::runner::labelled_container& c) {
  return !c.run_label.empty() && c.name == "plb-sandbox-" + c.run_label;
}

// The tool's own are ranked by when they are due: created + the label (digits, capped at 1e9),
// saturating; no digits: last. Written apart from the reader's, as the oracle.
std::int64_t rank_of(const plb::runner::labelled_container& c) {
  if (!agree(c)) return c.created;
  if (c.deadline_label.empty()) return INT64_MAX;
  std::int64_t after = 0;
  for (const char ch : c.deadline_label) {
    if (ch < '0' || ch > '9') return INT64_MAX;
    after = std::min<std::int64_t>(after * 10 + (ch - '0'), 1'000'000'000);
  }
  return c.created > INT64_MAX - after ? INT64_MAX : c.created + after;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t step = 1 + data[0] % 64;
  const std::string_view s(reinterpret_cast<const char*>(data) + 1, size - 1);
  plb::runner::container_list_reader reader(bound);
  for (std::size_t at = 0; at < s.size(); at += step)
    if (!reader.feed(s.substr(at, step))) break;
  const auto list = reader.finish();
  if (!list) {
    FUZZ_CHECK(!list.error().detail.empty());
    return 0;
  }
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 32;
  const auto dom = json::parse(json::string_view(s.data(), s.size()), ec, {}, po);
  FUZZ_CHECK(!ec && dom.is_array());
  // The DOM's entries ranked as the reader ranks them; the reader keeps the first `bound`.
  std::vector<std::tuple<bool, std::int64_t, std::size_t, plb::runner::labelled_container>> ranked;
  for (std::size_t i = 0; i < dom.get_array().size(); ++i) {
    auto lc = from_dom(dom.get_array()[i].get_object());
    ranked.emplace_back(!agree(lc), rank_of(lc), i, std::move(lc));
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  const std::size_t kept = std::min(bound, ranked.size());
  ranked.resize(kept);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return std::get<2>(a) < std::get<2>(b); });
  FUZZ_CHECK(list->containers.size() == kept && list->left_out == dom.get_array().size() - kept);
  for (std::size_t i = 0; i < kept; ++i) {
    const auto& want = std::get<3>(ranked[i]);
    const auto& got = list->containers[i];
    FUZZ_CHECK(got.name == want.name && got.run_label == want.run_label && got.deadline_label == want.deadline_label &&
               got.created == want.created);
  }
  return 0;
}
