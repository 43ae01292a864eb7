// SPDX-License-Identifier: Apache-2.0
// Every message is one line of printable ASCII, whatever bytes went into it.

#include <gtest/gtest.h>

#include "support/one_line.hpp"

namespace plb {
namespace {

TEST(OneLine, EveryNonPrintableByteIsEscaped) {
  EXPECT_EQ(one_line("plain text 0-9"), "plain text 0-9");
  EXPECT_EQ(one_line("a\x1b[2K\rb\x07\nc"), "a\\x1b[2K\\x0db\\x07\\x0ac");
  EXPECT_EQ(one_line("back\\slash"), "back\\\\slash") << "the escape itself cannot be forged";
  EXPECT_EQ(one_line("\xc2\x9b"), "\\xc2\\x9b") << "C1 controls too";
  EXPECT_EQ(one_line(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(OneLine, HexEscapeIsThePrefixAndTwoDigits) {
  std::string out = "a";
  append_hex_escape(out, 0x0a, "\\x");
  append_hex_escape(out, 0xfe, "%", true);
  append_hex_escape(out, 0x00, "%");
  EXPECT_EQ(out, "a\\x0a%FE%00");
}

}  // namespace
}  // namespace plb
