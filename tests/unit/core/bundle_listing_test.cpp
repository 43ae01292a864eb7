// SPDX-License-Identifier: Apache-2.0
// The bundle's names (printable UTF-8, table-driven), the escaping every message uses, the path
// bounds, and the canonical listing: its exact text, its byte order and its digest.
#include "plb/sandbox/bundle_listing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sb = plb::sandbox;

namespace {

using E = sb::bundle_name_error;

TEST(BundleListing, NamesArePrintableUtf8) {
  const struct {
    std::string name;
    E error;
    std::size_t offset;
  } cases[] = {
      {"model.pt", E::ok, 0},
      {"with two  spaces", E::ok, 0},
      {"...", E::ok, 0},
      {".hidden", E::ok, 0},
      {"caf\xc3\xa9", E::ok, 0},               // é
      {"\xe6\x97\xa5\xe6\x9c\xac", E::ok, 0},  // 日本
      {"\xf0\x9f\x98\x80", E::ok, 0},          // U+1F600
      {"\xc2\xa0", E::ok, 0},                  // U+00A0, the first printable past C1
      {"", E::empty, 0},
      {".", E::dot, 0},
      {"..", E::dot, 0},
      {"a/b", E::slash, 1},
      {"a\nb", E::not_printable, 1},
      {"a\tb", E::not_printable, 1},
      {"\r", E::not_printable, 0},
      {"\x1b[31m", E::not_printable, 0},
      {"a\x7f", E::not_printable, 1},                // DEL
      {"x\xc2\x85", E::not_printable, 1},            // U+0085 NEL, a C1 control
      {"\xc2\x9f", E::not_printable, 0},             // U+009F, the last C1
      {"caf\xc3", E::not_printable, 3},              // truncated
      {"\xff", E::not_printable, 0},                 // never UTF-8
      {"\x80", E::not_printable, 0},                 // a continuation byte first
      {"\xc0\xaf", E::not_printable, 0},             // overlong '/'
      {"\xe0\x80\xaf", E::not_printable, 0},         // overlong, three bytes
      {"\xed\xa0\x80", E::not_printable, 0},         // a surrogate
      {"\xf4\x90\x80\x80", E::not_printable, 0},     // past U+10FFFF
      {"a\xe2\x80\xa8", E::not_printable, 1},        // U+2028 line separator
      {"\xe2\x80\xaegnp.exe", E::not_printable, 0},  // U+202E right-to-left override
      {"\xe2\x81\xa6x", E::not_printable, 0},        // U+2066 isolate
      {"ok\xc3\xa9\xc3(", E::not_printable, 4},      // the offset of the first bad byte
  };
  for (const auto& c : cases) {
    const auto r = sb::check_bundle_name(c.name);
    EXPECT_EQ(r.error, c.error) << sb::escape_bundle_path(c.name);
    EXPECT_EQ(r.offset, c.offset) << sb::escape_bundle_path(c.name);
    EXPECT_EQ(static_cast<bool>(r), c.error == E::ok);
  }
}

TEST(BundleListing, EscapingKeepsPrintableUtf8AndShowsEveryOtherByte) {
  const struct {
    std::string path, shown;
  } cases[] = {
      {"a b/c.pt", "a b/c.pt"},
      {"caf\xc3\xa9", "caf\xc3\xa9"},
      {"a\nb", "a\\x0ab"},
      {"\x1b[2J", "\\x1b[2J"},
      {"\xff\xfe", "\\xff\\xfe"},
      {"x\xc2\x85", "x\\xc2\\x85"},
      {"caf\xc3", "caf\\xc3"},
      {"a\\x0ab", "a\\\\x0ab"},  // a backslash in the name: never mistaken for an escape
      {"\xe2\x80\xae", "\\xe2\\x80\\xae"},
      {"", ""},
  };
  for (const auto& c : cases) EXPECT_EQ(sb::escape_bundle_path(c.path), c.shown);
  // What is shown is always one line of printable bytes, whatever the name.
  std::string every;
  for (int b = 0; b < 256; ++b) every += static_cast<char>(b);
  for (const char ch : sb::escape_bundle_path(every)) {
    const auto u = static_cast<unsigned char>(ch);
    EXPECT_TRUE(u >= 0x20 && u != 0x7f) << int(u);
  }
}

TEST(BundleListing, PathsAreBoundedByLengthAndDepth) {
  sb::SandboxLimits l;
  l.bundle_depth = 3;
  l.bundle_path_bytes = 16;
  using P = sb::bundle_path_error;
  const struct {
    std::string path;
    P error;
  } cases[] = {
      {"a", P::ok},
      {"a/b/c", P::ok},  // three components: the bound
      {"a/b/c/d", P::too_deep},
      {std::string(16, 'x'), P::ok},
      {std::string(17, 'x'), P::too_long},
      {"a/\n/c", P::bad_name},
      {"a/../c", P::bad_name},
      {"a//c", P::bad_name},
      {"/a", P::bad_name},
      {"a/", P::bad_name},
  };
  for (const auto& c : cases) EXPECT_EQ(sb::check_bundle_path(c.path, l).error, c.error) << c.path;
  const auto bad = sb::check_bundle_path("ab/c\nd", l);
  EXPECT_EQ(bad.name.error, E::not_printable);
  EXPECT_EQ(bad.name.offset, 4u) << "the offset is the path's, not the component's";
}

sb::bundle_file file(std::string path, const std::string& content) {
  return {std::move(path), content.size(), sb::sha256_of(content).digest};
}

TEST(BundleListing, TheListingIsExactSortedByBytesAndItsDigestIsItsSha256) {
  // Given out of order: the listing sorts by unsigned bytes, so "a-b" < "a/b" < "a0" ('-' 0x2d,
  // '/' 0x2f, '0' 0x30), "Z" < "a", and é (0xc3 0xa9) after every ASCII name.
  const std::vector<sb::bundle_file> files = {
      file("caf\xc3\xa9", "e"), file("a0", ""),       file("a/b", "ab"),
      file("Z", "z"),           file("a-b", "a-b\n"), file("dir with space/w.bin", std::string(1000, '\0')),
  };
  const auto r = sb::make_bundle_listing(files, true);
  ASSERT_TRUE(r);
  const auto line = [](const std::string& content, const std::string& path) {
    return sb::sha256_of(content).digest.hex() + "  " + std::to_string(content.size()) + "  " + path + "\n";
  };
  const std::string expected = line("z", "Z") + line("a-b\n", "a-b") + line("ab", "a/b") + line("", "a0") +
                               line("e", "caf\xc3\xa9") + line(std::string(1000, '\0'), "dir with space/w.bin");
  EXPECT_EQ(r.listing.text, expected);
  EXPECT_EQ(r.listing.digest.hex(), sb::sha256_of(expected).digest.hex());
  EXPECT_EQ(r.listing.files, 6u);
  EXPECT_EQ(r.listing.bytes, 1u + 0 + 2 + 1 + 4 + 1000);
  // A known line, written out: the format is the docs' (docs/bundles.md).
  EXPECT_EQ(line("ab", "a/b"), "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603  2  a/b\n");
  // Without the text, the same digest.
  const auto quiet = sb::make_bundle_listing(files, false);
  EXPECT_TRUE(quiet.listing.text.empty());
  EXPECT_EQ(quiet.listing.digest.hex(), r.listing.digest.hex());
}

TEST(BundleListing, AnythingThatChangesAFileOrItsNameChangesTheDigest) {
  const auto digest = [](const std::vector<sb::bundle_file>& f) {
    return sb::make_bundle_listing(f, false).listing.digest.hex();
  };
  const std::string base = digest({file("a", "1"), file("b", "2")});
  EXPECT_NE(digest({file("a", "1"), file("b", "3")}), base);
  EXPECT_NE(digest({file("a", "1"), file("c", "2")}), base);
  EXPECT_NE(digest({file("a", "1")}), base);
  EXPECT_NE(digest({file("a", "1"), file("b", "2"), file("c", "")}), base) << "an empty file counts";
  EXPECT_EQ(digest({file("b", "2"), file("a", "1")}), base) << "the order found does not";
  // An empty bundle is the SHA-256 of nothing.
  EXPECT_EQ(digest({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
