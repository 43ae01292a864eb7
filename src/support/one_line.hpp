// SPDX-License-Identifier: Apache-2.0
// Every message the tool prints is exactly one line of printable ASCII: bytes that came from files
// or flags (CSV header names, paths) could otherwise paint a forged line on the operator's
// terminal with ESC, CR, BEL or LF. Anything outside 0x20-0x7e becomes \xNN, and a backslash
// becomes \\ so the escaping cannot be forged either.
#pragma once

#include <string>
#include <string_view>

namespace plb {

// `prefix` then the byte in two hex digits: the one way the tool writes an escaped byte (here as
// \xNN, in URLs as %NN).
inline void append_hex_escape(std::string& out, unsigned char c, std::string_view prefix, bool upper = false) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  out += prefix;
  out += digits[c >> 4];
  out += digits[c & 0xf];
}

inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c <= 0x7e) {
      out += ch;
    } else {
      append_hex_escape(out, c, "\\x");
    }
  }
  return out;
}

}  // namespace plb
