// Every message the tool prints is exactly one line of printable ASCII: bytes that came from files
// or flags (CSV header names, paths) could otherwise paint a forged line on the operator's
// terminal with ESC, CR, BEL or LF. Anything outside 0x20-0x7e becomes \xNN, and a backslash
// becomes \\ so the escaping cannot be forged either.
#pragma once

#include <string>
#include <string_view>

namespace plb::tool {

inline std::string one_line(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c <= 0x7e) {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  return out;
}

}  // namespace plb::tool
