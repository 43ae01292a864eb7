// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/stderr_diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>

namespace plb::sandbox {
namespace {

bool printable_lines(const std::string& text, std::size_t line_chars) {
  std::size_t column = 0;
  for (const char c : text) {
    if (c == '\n') {
      column = 0;
      continue;
    }
    if (c < 0x20 || c > 0x7e || ++column > line_chars) return false;
  }
  return true;
}

TEST(StderrTail, KeepsEverythingUnderItsCapacity) {
  stderr_tail t(8);
  t.append("abc", 3);
  t.append("de", 2);
  EXPECT_EQ(t.bytes(), "abcde");
  EXPECT_EQ(t.seen(), 5u);
}

TEST(StderrTail, KeepsTheLastBytesInOrderAcrossPieces) {
  stderr_tail t(4);
  for (const char* piece : {"abc", "def", "g", "hij"}) t.append(piece, std::char_traits<char>::length(piece));
  EXPECT_EQ(t.bytes(), "ghij");
  EXPECT_EQ(t.seen(), 10u);
  t.append("k", 1);
  EXPECT_EQ(t.bytes(), "hijk");
}

TEST(StderrTail, APieceLargerThanItsCapacityLeavesItsEnd) {
  stderr_tail t(3);
  t.append("ab", 2);
  t.append("0123456789", 10);
  EXPECT_EQ(t.bytes(), "789");
  t.append("x", 1);
  EXPECT_EQ(t.bytes(), "89x");
}

TEST(StderrTail, MemoryIsItsCapacityWhateverArrives) {
  stderr_tail t(64 * kib);
  const std::string block(1 << 20, 'z');
  for (int i = 0; i < 8; ++i) t.append(block.data(), block.size());
  EXPECT_EQ(t.bytes().size(), 64 * kib);
  EXPECT_EQ(t.seen(), 8u << 20);
}

TEST(EscapeDiagnostics, PrintableAsciiAndNewlinesPassEverythingElseIsHex) {
  EXPECT_EQ(escape_diagnostics("ok 1.5\nnext"), "ok 1.5\nnext");
  EXPECT_EQ(escape_diagnostics(std::string("\x1b[31mred\0\x07", 10)), "\\x1b[31mred\\x00\\x07");
  EXPECT_EQ(escape_diagnostics("tab\there\r\n"), "tab\\x09here\\x0d\n");
  EXPECT_EQ(escape_diagnostics("\xc3\xa9\x7f\xff"), "\\xc3\\xa9\\x7f\\xff");
}

TEST(EscapeDiagnostics, ABackslashIsEscapedSoEveryEscapeIsUnambiguous) {
  EXPECT_EQ(escape_diagnostics("\\x41"), "\\x5cx41");
}

TEST(EscapeDiagnostics, LongLinesWrapWithALoneBackslashAndNoEscapeIsSplit) {
  EXPECT_EQ(escape_diagnostics("abcdefgh", 4), "abc\\\ndef\\\ngh");
  // Each \xNN is whole on its line: after "a" the escape and the continuation do not fit in 5.
  EXPECT_EQ(escape_diagnostics("a\x01"
                               "b",
                               5),
            "a\\\n\\x01\\\nb");
  const std::string hostile(100000, '\x1b');
  const std::string out = escape_diagnostics(hostile);
  EXPECT_TRUE(printable_lines(out, diagnostics_line_chars));
  const std::size_t per_line = (diagnostics_line_chars - 1) / 4;  // whole escapes, then the backslash
  EXPECT_EQ(out.size(), 4 * hostile.size() + 2 * (hostile.size() / per_line));
}

TEST(RenderDiagnostics, TheHeaderSaysHowMuchArrivedAndIsShownThenTheEscapedTail) {
  stderr_tail t(5);
  t.append("hello\x1b world", 12);
  const std::string text = render_diagnostics(t, "script_failed", "2026-01-02T03:04:05Z");
  EXPECT_NE(text.find("# run started 2026-01-02T03:04:05Z, verdict script_failed; 12 bytes of stderr arrived within "
                      "the output cap, "
                      "the last 5 shown"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("review it before passing anything of it on"), std::string::npos);
  EXPECT_EQ(text.substr(text.rfind("\\\n") + 2), "world\n");
  EXPECT_TRUE(printable_lines(text, 400));
}

TEST(RenderDiagnostics, NothingWrittenIsStillAFileThatSaysSo) {
  const stderr_tail t(16);
  const std::string text = render_diagnostics(t, "timeout", "t");
  EXPECT_NE(text.find("0 bytes of stderr arrived within the output cap, the last 0 shown"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(StderrTailBounds, TheDefaultIsInBoundsAndTheBoundsAreChecked) {
  EXPECT_TRUE(stderr_tail_in_bounds(stderr_tail_bounds::default_kib));
  EXPECT_EQ(stderr_tail_bounds::default_kib, 64u);
  EXPECT_TRUE(stderr_tail_in_bounds(stderr_tail_bounds::min_kib));
  EXPECT_TRUE(stderr_tail_in_bounds(stderr_tail_bounds::max_kib));
  EXPECT_FALSE(stderr_tail_in_bounds(0));
  EXPECT_FALSE(stderr_tail_in_bounds(stderr_tail_bounds::max_kib + 1));
}

}  // namespace
}  // namespace plb::sandbox
