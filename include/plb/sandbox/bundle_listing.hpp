// SPDX-License-Identifier: Apache-2.0
// A model bundle's canonical listing and its digest (docs/bundles.md defines both for operators).
//
// A bundle is a directory of regular files and directories, nothing else. Its listing is one line
// per regular file, sorted by the file's relative path as unsigned bytes (LC_ALL=C sort):
//
//   <SHA-256 of the file, 64 lowercase hex>  <size in bytes, decimal>  <relative path>\n
//
// two spaces between the fields, the path with '/' between its components and no leading "./".
// Nothing about times, owners, modes or directories: an empty directory is not in the listing.
// The bundle's digest is the SHA-256 of the whole listing, so `sha256sum` and a shell loop
// reproduce it (docs/bundles.md has the one-liner and a test runs it).
//
// Every name in a bundle is printable UTF-8: a component with a control byte (C0, DEL, C1), a
// line or paragraph separator, a bidirectional override, invalid UTF-8 (overlong, surrogate,
// beyond U+10FFFF, truncated), "." or ".." is refused, so a listing line is always one line and
// every path a message names can be shown. escape_bundle_path() is how every message shows a
// bundle path, valid or not.
//
// Pure: no I/O, no global state. The walk that reads the files is the runner's
// (src/runner/score/bundle_snapshot.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::sandbox {

// ---- Names: printable UTF-8 ------------------------------------------------------------------

namespace detail {

// The length of the printable UTF-8 character at the start of `s`, or 0 when the bytes there are
// not one: a control byte, invalid UTF-8, or a code point the bundle's names refuse.
constexpr std::size_t printable_utf8_length(std::string_view s) noexcept {
  if (s.empty()) return 0;
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x20 || b0 == 0x7f) return 0;  // C0 controls (newline, tab, ESC, ...) and DEL
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  std::uint32_t least = 0;  // the smallest code point of this length: below it is overlong
  if ((b0 & 0xe0) == 0xc0) {
    n = 2, cp = b0 & 0x1fu, least = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, cp = b0 & 0x0fu, least = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, cp = b0 & 0x07u, least = 0x10000;
  } else {
    return 0;  // a continuation byte first, or 0xf8-0xff
  }
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (cp < least || cp > 0x10ffff) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;                                      // surrogates are not characters
  if (cp >= 0x80 && cp <= 0x9f) return 0;                                          // C1 controls
  if (cp == 0x2028 || cp == 0x2029) return 0;                                      // line and paragraph separators
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 0;  // bidi overrides
  return n;
}

}  // namespace detail

// A path for a message: printable UTF-8 as it is, a backslash as "\\", any other byte as \xNN,
// so the text is one line whatever the name holds, and two different names never look alike.
inline std::string escape_bundle_path(std::string_view path) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(path.size());
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '\\') {
      out += "\\\\";
      ++i;
      continue;
    }
    const std::size_t n = detail::printable_utf8_length(path.substr(i));
    if (n > 0) {
      out.append(path.substr(i, n));
      i += n;
      continue;
    }
    const auto c = static_cast<unsigned char>(path[i]);
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 0xf];
    ++i;
  }
  return out;
}

enum class bundle_name_error : std::uint8_t {
  ok,
  empty,
  dot,            // "." or ".."
  slash,          // a '/' inside one component
  not_printable,  // a control byte, invalid UTF-8, a separator or a bidi override
};

constexpr std::string_view message(bundle_name_error e) noexcept {
  switch (e) {
    case bundle_name_error::ok: return "ok";
    case bundle_name_error::empty: return "an empty name";
    case bundle_name_error::dot: return "a name \".\" or \"..\"";
    case bundle_name_error::slash: return "a '/' inside a name";
    case bundle_name_error::not_printable:
      return "a name that is not printable UTF-8 (a control byte such as a newline or tab, or invalid UTF-8)";
  }
  return "unknown error";
}

struct bundle_name_check {
  bundle_name_error error = bundle_name_error::ok;
  std::size_t offset = 0;  // the byte of the name where it went wrong
  explicit constexpr operator bool() const noexcept { return error == bundle_name_error::ok; }
};

// One component of a bundle path (a directory entry's name).
constexpr bundle_name_check check_bundle_name(std::string_view name) noexcept {
  if (name.empty()) return {bundle_name_error::empty, 0};
  if (name == "." || name == "..") return {bundle_name_error::dot, 0};
  std::size_t i = 0;
  while (i < name.size()) {
    if (name[i] == '/') return {bundle_name_error::slash, i};
    const std::size_t n = detail::printable_utf8_length(name.substr(i));
    if (n == 0) return {bundle_name_error::not_printable, i};
    i += n;
  }
  return {};
}

// ---- Paths: bounded by length and depth ------------------------------------------------------

enum class bundle_path_error : std::uint8_t {
  ok,
  bad_name,  // one of its components fails check_bundle_name
  too_long,  // more bytes than bundle_path_bytes
  too_deep,  // more components than bundle_depth
};

struct bundle_path_check {
  bundle_path_error error = bundle_path_error::ok;
  bundle_name_check name;  // with bad_name
  explicit constexpr operator bool() const noexcept { return error == bundle_path_error::ok; }
};

// A relative path of a bundle entry ("a/b/c", no leading or trailing '/'), against the limits:
// each component a valid name, at most bundle_path_bytes bytes, at most bundle_depth components.
constexpr bundle_path_check check_bundle_path(std::string_view path, const SandboxLimits& limits) noexcept {
  std::uint64_t depth = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    const std::string_view part = path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    auto c = check_bundle_name(part);
    if (!c) {
      c.offset += start;
      return {bundle_path_error::bad_name, c};
    }
    ++depth;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (path.size() > limits.bundle_path_bytes) return {bundle_path_error::too_long, {}};
  if (depth > limits.bundle_depth) return {bundle_path_error::too_deep, {}};
  return {};
}

// ---- The listing and its digest --------------------------------------------------------------

struct bundle_file {
  std::string path;  // relative, '/' between components
  std::uint64_t size = 0;
  sha256_digest digest;
};

// Unsigned byte order, as LC_ALL=C sort (std::string compares through char_traits<char>, which
// compares as unsigned char).
inline bool listing_order(const bundle_file& a, const bundle_file& b) noexcept { return a.path < b.path; }

inline void append_listing_line(std::string& out, const bundle_file& f) {
  out += f.digest.hex();
  out += "  ";
  out += std::to_string(f.size);
  out += "  ";
  out += f.path;
  out += '\n';
}

struct bundle_listing {
  sha256_digest digest;  // of the listing's text
  std::uint64_t bytes = 0;
  std::uint64_t files = 0;
  std::string text;  // the listing itself, when asked for
};

struct bundle_listing_result {
  bundle_listing listing;
  digest_error error = digest_error::ok;  // hash_failed only: OpenSSL refused
  explicit operator bool() const noexcept { return error == digest_error::ok; }
};

// The listing of `files` (sorted here, by listing_order) and its digest, with the text when
// `keep_text`. Hashed line by line: the text is never built unless asked for.
inline bundle_listing_result make_bundle_listing(std::vector<bundle_file> files, bool keep_text) {
  std::sort(files.begin(), files.end(), listing_order);
  bundle_listing_result r;
  sha256_hasher h;
  std::string line;
  r.listing.files = files.size();
  for (const auto& f : files) {
    line.clear();
    append_listing_line(line, f);
    h.update(line);
    r.listing.bytes += f.size;
    if (keep_text) r.listing.text += line;
  }
  const auto d = h.finish();
  if (!d) r.error = d.error;
  r.listing.digest = d.digest;
  return r;
}

}  // namespace plb::sandbox
