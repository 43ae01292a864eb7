// SPDX-License-Identifier: Apache-2.0
// Batch manifests (JSON Lines) as `plb-sandbox batch --manifest` reads them. Properties: a refusal
// hands out nothing and points inside the input; an accepted manifest has valid, unique IDs in
// line order, and writing its entries back as JSON and parsing that again gives the same entries.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "plb/sandbox/batch_manifest.hpp"

namespace {

namespace sb = plb::sandbox;

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string render(const sb::manifest_entry& e) {
  std::string s =
      "{\"id\":" + quoted(e.id) + ",\"model\":" + quoted(e.model) + ",\"model_sha256\":" + quoted(e.model_sha256);
  if (e.runtime_image) s += ",\"runtime_image\":" + quoted(*e.runtime_image);
  if (e.data) s += ",\"data\":" + quoted(*e.data);
  if (e.features) {
    s += ",\"features\":[";
    // Appended in two steps: `(i ? "," : "") + std::string` trips GCC 12's -Wrestrict false
    // positive (PR 105651) in a Release build.
    for (std::size_t i = 0; i < e.features->size(); ++i) {
      if (i) s += ',';
      s += quoted((*e.features)[i]);
    }
    s += "]";
  }
  if (e.task) s += ",\"task_type\":" + quoted(std::string(sb::name(*e.task)));
  if (e.id_column) s += ",\"id_column\":" + quoted(*e.id_column);
  if (e.wall_seconds) s += ",\"seconds\":" + std::to_string(*e.wall_seconds);
  if (e.memory_mib) s += ",\"memory_mb\":" + std::to_string(*e.memory_mib);
  return s + "}";
}

bool same(const sb::manifest_entry& a, const sb::manifest_entry& b) {
  return a.id == b.id && a.model == b.model && a.model_sha256 == b.model_sha256 && a.runtime_image == b.runtime_image &&
         a.data == b.data && a.features == b.features && a.task == b.task && a.id_column == b.id_column &&
         a.wall_seconds == b.wall_seconds && a.memory_mib == b.memory_mib;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sb::manifest_options options;
  options.max_line_bytes = 4096;  // small bounds, so the fuzzer reaches them
  options.max_lines = 64;
  options.max_features = 8;
  std::vector<sb::manifest_entry> entries;
  const auto r = sb::parse_manifest(text, options, entries);
  if (!r) {
    FUZZ_CHECK(entries.empty());
    FUZZ_CHECK(r.offset <= text.size());
    FUZZ_CHECK(r.error != sb::manifest_error::ok);
    return 0;
  }
  FUZZ_CHECK(!entries.empty() && entries.size() <= options.max_lines);
  std::set<std::string> ids;
  std::string again;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    FUZZ_CHECK(e.line == i + 1);
    FUZZ_CHECK(sb::is_valid_batch_id(e.id) && e.id != sb::reserved_id);
    FUZZ_CHECK(ids.insert(e.id).second);
    FUZZ_CHECK(!e.model.empty() && e.model.find('\0') == std::string::npos);
    FUZZ_CHECK(e.model_sha256.size() == 64);
    FUZZ_CHECK(!e.features || (!e.features->empty() && e.features->size() <= options.max_features));
    again += render(e) + "\n";
  }
  options.max_line_bytes = again.size();  // escaping may lengthen a line
  std::vector<sb::manifest_entry> reparsed;
  FUZZ_CHECK(sb::parse_manifest(again, options, reparsed));
  FUZZ_CHECK(reparsed.size() == entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) FUZZ_CHECK(same(entries[i], reparsed[i]));
  return 0;
}
