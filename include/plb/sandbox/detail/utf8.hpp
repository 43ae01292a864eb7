// SPDX-License-Identifier: Apache-2.0
// UTF-8 encoding of one code point, for parsers that decode JSON \u escapes (the batch manifest;
// the fuzz oracle's strict JSON reader).
#pragma once

#include <cstdint>
#include <string>

namespace plb::sandbox::detail {

// `cp` must be a scalar value (at most U+10FFFF, not a surrogate): the callers have checked it.
inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace plb::sandbox::detail
