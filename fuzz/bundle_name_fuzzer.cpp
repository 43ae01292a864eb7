// SPDX-License-Identifier: Apache-2.0
// A bundle's entry paths, as the walk meets them (plb/sandbox/bundle_listing.hpp): byte 0 picks the
// depth and length bounds, the rest is the path. Properties: the escaping of any bytes is one line
// of printable UTF-8 (what every message naming a bundle path shows) and keeps an accepted name
// without a backslash as it is; an accepted name holds no '/', control byte or DEL and is never
// "." or ".."; an accepted path's components are each accepted, within the bounds.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "plb/sandbox/bundle_listing.hpp"

namespace sb = plb::sandbox;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view path(reinterpret_cast<const char*>(data + 1), size - 1);
  sb::SandboxLimits limits;
  limits.bundle_depth = 1 + (data[0] & 0x7);
  limits.bundle_path_bytes = 16 + (data[0] >> 3) * 4;

  const std::string shown = sb::escape_bundle_path(path);
  for (std::size_t i = 0; i < shown.size();) {
    const std::size_t n = sb::detail::printable_utf8_length(std::string_view(shown).substr(i));
    FUZZ_CHECK(n > 0);
    i += n;
  }

  const auto name = sb::check_bundle_name(path);
  FUZZ_CHECK(name.offset <= path.size());
  if (name) {
    FUZZ_CHECK(!path.empty() && path != "." && path != "..");
    for (const char c : path) {
      const auto u = static_cast<unsigned char>(c);
      FUZZ_CHECK(c != '/' && u >= 0x20 && u != 0x7f);
    }
    if (path.find('\\') == std::string_view::npos) FUZZ_CHECK(shown == path);
  }

  const auto whole = sb::check_bundle_path(path, limits);
  if (whole) {
    FUZZ_CHECK(path.size() <= limits.bundle_path_bytes);
    std::uint64_t depth = 0;
    std::size_t start = 0;
    while (true) {
      const std::size_t slash = path.find('/', start);
      FUZZ_CHECK(sb::check_bundle_name(path.substr(start, slash == path.npos ? path.npos : slash - start)));
      ++depth;
      if (slash == path.npos) break;
      start = slash + 1;
    }
    FUZZ_CHECK(depth <= limits.bundle_depth);
  } else if (whole.error == sb::bundle_path_error::bad_name) {
    FUZZ_CHECK(whole.name.offset <= path.size());
  }
  return 0;
}
