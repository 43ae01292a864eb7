// SPDX-License-Identifier: Apache-2.0
// Batch manifests: JSON Lines, one scoring run per line, as `plb-sandbox batch` reads them.
//
//   {"id": "team-07", "model": "subs/07.py", "model_sha256": "<64 hex>", "seconds": 20}
//
// Each line is one flat JSON object. `id`, `model` and `model_sha256` are required; `runtime_image`,
// `data`, `features` (an array of strings), `task_type`, `id_column` (strings) and `seconds`,
// `memory_mb` (whole numbers) are optional and, when absent, come from the command line; `bundle`
// (a model bundle's directory, relative to the manifest's like `model`) and `bundle_sha256` (its
// reviewed digest) are optional too, both or neither, and never come from the command line. The
// parser is strict: an unknown or duplicate key, a value of the wrong type, a bad value, a
// duplicate ID, an overlong line, a blank line in the middle: each is refused with the line, the
// column and the field, before anything runs. The manifest is operator input, but it is often
// assembled from what submitters sent (their IDs become file names), so it is treated as hostile.
//
// IDs name files in the output directory (`<id>.csv`, ...): 1 to 128 bytes of [A-Za-z0-9._-]
// beginning with a letter or digit (never ".", "..", a hidden file, an option-like "-x" or a
// spreadsheet formula), and never `batch-summary`, whose files the batch itself writes.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plb/sandbox/detail/utf8.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/task_type.hpp"

namespace plb::sandbox {

enum class manifest_error : std::uint8_t {
  ok,
  empty_manifest,
  too_large,
  too_many_lines,
  line_too_long,
  empty_line,
  not_an_object,
  expected_key,
  expected_colon,
  expected_value,
  expected_comma_or_end,
  trailing_characters,
  unterminated_string,
  control_character,
  invalid_escape,
  invalid_utf8,
  nul_character,
  duplicate_key,
  unknown_key,
  wrong_type,
  missing_field,
  empty_value,
  bad_id,
  reserved_id,
  duplicate_id,
  bad_digest,
  bad_image_id,
  bad_task_type,
  bad_limit,
  too_many_features,
  duplicate_feature,
  out_of_memory,
};

constexpr std::string_view message(manifest_error e) noexcept {
  using E = manifest_error;
  switch (e) {
    case E::ok: return "ok";
    case E::empty_manifest: return "the manifest has no lines";
    case E::too_large: return "the manifest is larger than its limit";
    case E::too_many_lines: return "more lines than the manifest limit";
    case E::line_too_long: return "the line is longer than its limit";
    case E::empty_line: return "an empty line (only the last line may be empty)";
    case E::not_an_object: return "a line must be one JSON object";
    case E::expected_key: return "expected a key in double quotes";
    case E::expected_colon: return "expected ':' after the key";
    case E::expected_value: return "expected a value";
    case E::expected_comma_or_end: return "expected ',' or '}'";
    case E::trailing_characters: return "characters after the object";
    case E::unterminated_string: return "unterminated string";
    case E::control_character: return "a control character in a string (escape it)";
    case E::invalid_escape: return "invalid escape sequence";
    case E::invalid_utf8: return "invalid UTF-8";
    case E::nul_character: return "a NUL character in a string";
    case E::duplicate_key: return "the key appears twice";
    case E::unknown_key: return "unknown key";
    case E::wrong_type: return "wrong type for this field";
    case E::missing_field: return "a required field is missing";
    case E::empty_value: return "empty value";
    case E::bad_id: return "an ID is 1 to 128 bytes of [A-Za-z0-9._-] beginning with a letter or digit";
    case E::reserved_id: return "this ID is reserved for the batch's own files";
    case E::duplicate_id: return "the ID was already used on an earlier line";
    case E::bad_digest: return "expected 64 hex digits (sha256sum)";
    case E::bad_image_id: return "expected a local image ID, sha256:<64 lowercase hex>";
    case E::bad_task_type: return "expected regression or binary-classification";
    case E::bad_limit: return "not a whole number within the limit's bounds";
    case E::too_many_features: return "more features than the limit";
    case E::duplicate_feature: return "a feature is listed twice";
    case E::out_of_memory: return "out of memory";
  }
  return "unknown error";
}

// The keys a line may carry, in the order a reader expects them.
enum class manifest_field : std::uint8_t {
  none,
  id,
  model,
  model_sha256,
  runtime_image,
  data,
  features,
  task_type,
  id_column,
  seconds,
  memory_mb,
  bundle,
  bundle_sha256,
};

inline constexpr std::array<std::string_view, 13> manifest_field_names{
    "",          "id",        "model",   "model_sha256", "runtime_image", "data",         "features",
    "task_type", "id_column", "seconds", "memory_mb",    "bundle",        "bundle_sha256"};

constexpr std::string_view name(manifest_field f) noexcept { return manifest_field_names[static_cast<std::size_t>(f)]; }

inline constexpr std::size_t max_id_bytes = 128;
inline constexpr std::string_view reserved_id = "batch-summary";

// One line, checked. Optional fields are empty when the line leaves them to the command line.
struct manifest_entry {
  std::size_t line = 0;    // 1-based
  std::size_t offset = 0;  // of the line's first byte in the manifest
  std::string id;
  std::string model;
  std::string model_sha256;  // 64 hex digits, as written
  std::optional<std::string> runtime_image;
  std::optional<std::string> data;
  std::optional<std::vector<std::string>> features;
  std::optional<task_type> task;
  std::optional<std::string> id_column;
  std::optional<std::uint64_t> wall_seconds;  // "seconds"
  std::optional<std::uint64_t> memory_mib;    // "memory_mb"
  std::optional<std::string> bundle;          // both or neither: a model bundle's directory
  std::optional<std::string> bundle_sha256;   // and its reviewed digest, 64 hex digits as written
};

// Strict defaults; each bound is what a round of submissions needs with room to spare.
struct manifest_options {
  std::size_t max_bytes = std::size_t{64} * 1024 * 1024;  // the whole file
  std::size_t max_lines = 100'000;                        // runs in one batch
  std::size_t max_line_bytes = std::size_t{64} * 1024;    // one line, newline excluded
  std::size_t max_features = 4096;                        // per line
};

struct manifest_result {
  manifest_error error = manifest_error::ok;
  std::size_t line = 0;    // 1-based; 0 for the whole manifest
  std::size_t column = 0;  // 1-based byte in the line; 0 when the line as a whole is refused
  std::size_t offset = 0;  // byte offset in the manifest
  manifest_field field = manifest_field::none;
  explicit operator bool() const noexcept { return error == manifest_error::ok; }
};

// True for a valid ID (see the top of this file).
constexpr bool is_valid_batch_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > max_id_bytes) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (!alnum(id.front())) return false;
  return std::all_of(id.begin(), id.end(), [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

namespace detail {

// One JSON line to one manifest_entry. Positions are offsets into the line.
class manifest_line_parser {
 public:
  manifest_line_parser(std::string_view line, const manifest_options& options) noexcept : s_(line), options_(options) {}

  // On failure, `at` is the byte in the line and `field` the key being read, if any.
  manifest_error parse(manifest_entry& out) {
    skip_space();
    if (!take('{')) return E::not_an_object;
    skip_space();
    if (take('}')) return finish_object();
    while (true) {
      skip_space();
      if (peek() != '"') return E::expected_key;
      const std::size_t key_at = pos_;
      std::string key;
      if (const auto e = read_string(key); e != E::ok) return e;
      const manifest_field f = field_of(key);
      if (f == manifest_field::none) return fail_at(key_at, E::unknown_key);
      field_ = f;
      if (seen_[static_cast<std::size_t>(f)]) return fail_at(key_at, E::duplicate_key);
      seen_[static_cast<std::size_t>(f)] = true;
      skip_space();
      if (!take(':')) return E::expected_colon;
      skip_space();
      if (const auto e = read_field(f, out); e != E::ok) return e;
      field_ = manifest_field::none;
      skip_space();
      if (take(',')) continue;
      if (take('}')) return finish_object();
      return E::expected_comma_or_end;
    }
  }

  std::size_t at() const noexcept { return pos_; }
  manifest_field field() const noexcept { return field_; }

 private:
  using E = manifest_error;

  static manifest_field field_of(std::string_view key) noexcept {
    for (std::size_t i = 1; i < manifest_field_names.size(); ++i)
      if (manifest_field_names[i] == key) return static_cast<manifest_field>(i);
    return manifest_field::none;
  }

  char peek() const noexcept { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool take(char c) noexcept {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void skip_space() noexcept {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  E fail_at(std::size_t at, E e) noexcept {
    pos_ = at;
    return e;
  }

  E finish_object() noexcept {
    skip_space();
    if (pos_ != s_.size()) return E::trailing_characters;
    for (manifest_field f : {manifest_field::id, manifest_field::model, manifest_field::model_sha256}) {
      if (!seen_[static_cast<std::size_t>(f)]) {
        field_ = f;
        return fail_at(0, E::missing_field);
      }
    }
    // A bundle comes with its digest, and a digest with its bundle: the one missing is named.
    const bool bundle = seen_[static_cast<std::size_t>(manifest_field::bundle)];
    if (bundle != seen_[static_cast<std::size_t>(manifest_field::bundle_sha256)]) {
      field_ = bundle ? manifest_field::bundle_sha256 : manifest_field::bundle;
      return fail_at(0, E::missing_field);
    }
    return E::ok;
  }

  // A string value with the field's own rules, or the field's whole numbers.
  E read_field(manifest_field f, manifest_entry& out) {
    using F = manifest_field;
    if (f == F::features) return read_features(out);
    if (f == F::seconds || f == F::memory_mb) return read_limit(f, out);
    const std::size_t value_at = pos_;
    if (peek() != '"') return value_start() ? E::wrong_type : E::expected_value;
    std::string v;
    if (const auto e = read_string(v); e != E::ok) return e;
    if (v.empty()) return fail_at(value_at, E::empty_value);
    switch (f) {
      case F::id:
        if (v == reserved_id) return fail_at(value_at, E::reserved_id);
        if (!is_valid_batch_id(v)) return fail_at(value_at, E::bad_id);
        out.id = std::move(v);
        return E::ok;
      case F::model: out.model = std::move(v); return E::ok;
      case F::model_sha256:
      case F::bundle_sha256:
        if (v.size() != 64 || !std::all_of(v.begin(), v.end(), [](char c) {
              return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            }))
          return fail_at(value_at, E::bad_digest);
        (f == F::model_sha256 ? out.model_sha256 : out.bundle_sha256.emplace()) = std::move(v);
        return E::ok;
      case F::bundle: out.bundle = std::move(v); return E::ok;
      case F::runtime_image:
        if (!parse_image_id(v)) return fail_at(value_at, E::bad_image_id);
        out.runtime_image = std::move(v);
        return E::ok;
      case F::data: out.data = std::move(v); return E::ok;
      case F::task_type: {
        const auto t = parse_task_type(v);
        if (!t) return fail_at(value_at, E::bad_task_type);
        out.task = *t;
        return E::ok;
      }
      case F::id_column: out.id_column = std::move(v); return E::ok;
      default: return E::wrong_type;  // not reached: every string field is listed above
    }
  }

  bool value_start() const noexcept {
    const char c = peek();
    return c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
  }

  E read_features(manifest_entry& out) {
    if (!take('[')) return value_start() || peek() == '"' ? E::wrong_type : E::expected_value;
    std::vector<std::string> features;
    skip_space();
    if (!take(']')) {
      while (true) {
        skip_space();
        const std::size_t item_at = pos_;
        if (peek() != '"') return value_start() ? E::wrong_type : E::expected_value;
        std::string name;
        if (const auto e = read_string(name); e != E::ok) return e;
        if (name.empty()) return fail_at(item_at, E::empty_value);
        if (features.size() == options_.max_features) return fail_at(item_at, E::too_many_features);
        features.push_back(std::move(name));
        skip_space();
        if (take(',')) continue;
        if (take(']')) break;
        return E::expected_comma_or_end;
      }
    }
    if (features.empty()) return E::empty_value;
    std::vector<std::string_view> sorted(features.begin(), features.end());
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return E::duplicate_feature;
    out.features = std::move(features);
    return E::ok;
  }

  E read_limit(manifest_field f, manifest_entry& out) noexcept {
    const std::size_t start = pos_;
    if (peek() == '"') return E::wrong_type;  // "30" is a string: limits are numbers
    while (pos_ < s_.size() && ((s_[pos_] >= '0' && s_[pos_] <= '9') || s_[pos_] == '-' || s_[pos_] == '+' ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
      ++pos_;
    if (pos_ == start) return value_start() ? fail_at(start, E::wrong_type) : E::expected_value;
    const limit_field lf = f == manifest_field::seconds ? limit_field::wall_seconds : limit_field::memory_mib;
    const auto r = parse_limit(lf, s_.substr(start, pos_ - start));
    if (!r) return fail_at(start + r.offset, E::bad_limit);
    (f == manifest_field::seconds ? out.wall_seconds : out.memory_mib) = r.value;
    return E::ok;
  }

  static int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Four hex digits after "\u" at pos_, or -1.
  long read_hex4() noexcept {
    if (s_.size() - pos_ < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_value(s_[pos_ + static_cast<std::size_t>(i)]);
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    pos_ += 4;
    return v;
  }

  E read_escape(std::string& out) {
    const std::size_t escape_at = pos_ - 1;
    const char c = peek();
    ++pos_;
    switch (c) {
      case '"': out += '"'; return E::ok;
      case '\\': out += '\\'; return E::ok;
      case '/': out += '/'; return E::ok;
      case 'b': out += '\b'; return E::ok;
      case 'f': out += '\f'; return E::ok;
      case 'n': out += '\n'; return E::ok;
      case 'r': out += '\r'; return E::ok;
      case 't': out += '\t'; return E::ok;
      case 'u': break;
      default: return fail_at(escape_at, E::invalid_escape);
    }
    long cp = read_hex4();
    if (cp < 0) return fail_at(escape_at, E::invalid_escape);
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail_at(escape_at, E::invalid_escape);  // a lone low surrogate
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!take('\\') || !take('u')) return fail_at(escape_at, E::invalid_escape);
      const long low = read_hex4();
      if (low < 0xDC00 || low > 0xDFFF) return fail_at(escape_at, E::invalid_escape);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp == 0) return fail_at(escape_at, E::nul_character);
    append_utf8(out, static_cast<std::uint32_t>(cp));
    return E::ok;
  }

  // The length of a well-formed UTF-8 sequence at pos_ (shortest form, no surrogates, at most
  // U+10FFFF), or 0.
  std::size_t utf8_length() const noexcept {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
    const std::size_t left = s_.size() - pos_;
    const unsigned char c = b(0);
    const auto cont = [&](std::size_t i) { return i < left && (b(i) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      if (!cont(1) || !cont(2)) return 0;
      if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
      if (c == 0xED && b(1) >= 0xA0) return 0;  // a surrogate
      return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      if (!cont(1) || !cont(2) || !cont(3)) return 0;
      if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
      if (c == 0xF4 && b(1) >= 0x90) return 0;  // past U+10FFFF
      return 4;
    }
    return 0;
  }

  E read_string(std::string& out) {
    const std::size_t open = pos_;
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= s_.size()) return fail_at(open, E::unterminated_string);
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return E::ok;
      }
      if (c == 0) return E::nul_character;
      if (c < 0x20) return E::control_character;
      if (c == '\\') {
        ++pos_;
        if (const auto e = read_escape(out); e != E::ok) return e;
        continue;
      }
      if (c < 0x80) {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      const std::size_t n = utf8_length();
      if (n == 0) return E::invalid_utf8;
      out.append(s_.substr(pos_, n));
      pos_ += n;
    }
  }

  std::string_view s_;
  const manifest_options& options_;
  std::size_t pos_ = 0;
  manifest_field field_ = manifest_field::none;
  std::array<bool, manifest_field_names.size()> seen_{};
};

inline manifest_result manifest_failure(manifest_error e, std::size_t line, std::size_t column, std::size_t offset,
                                        manifest_field f = manifest_field::none) noexcept {
  return {e, line, column, offset, f};
}

// The first line (by number) whose ID an earlier line already used.
inline const manifest_entry* first_duplicate_id(const std::vector<manifest_entry>& entries) {
  std::vector<const manifest_entry*> by_id;
  by_id.reserve(entries.size());
  for (const auto& e : entries) by_id.push_back(&e);
  std::sort(by_id.begin(), by_id.end(), [](const manifest_entry* a, const manifest_entry* b) {
    return a->id != b->id ? a->id < b->id : a->line < b->line;
  });
  const manifest_entry* first = nullptr;
  for (std::size_t i = 1; i < by_id.size(); ++i)
    if (by_id[i]->id == by_id[i - 1]->id && (first == nullptr || by_id[i]->line < first->line)) first = by_id[i];
  return first;
}

}  // namespace detail

// Parses a whole manifest into `out` (cleared first). On failure `out` is left empty and the
// result names the line, column and field. Lines end in "\n" (a "\r" before it is whitespace);
// the last line may lack it, and one empty last line is the usual end of a file.
inline manifest_result parse_manifest(std::string_view text, const manifest_options& options,
                                      std::vector<manifest_entry>& out) noexcept {
  out.clear();
  if (text.size() > options.max_bytes) return detail::manifest_failure(manifest_error::too_large, 0, 0, 0);
  try {
    std::size_t start = 0;
    std::size_t line = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      ++line;
      const std::string_view s = text.substr(start, end - start);
      if (line > options.max_lines) {
        out.clear();
        return detail::manifest_failure(manifest_error::too_many_lines, line, 0, start);
      }
      if (s.size() > options.max_line_bytes) {
        out.clear();
        return detail::manifest_failure(manifest_error::line_too_long, line, options.max_line_bytes + 1,
                                        start + options.max_line_bytes);
      }
      if (s.find_first_not_of(" \t\r") == std::string_view::npos) {
        out.clear();
        return detail::manifest_failure(manifest_error::empty_line, line, 0, start);
      }
      manifest_entry entry;
      entry.line = line;
      entry.offset = start;
      detail::manifest_line_parser p(s, options);
      if (const auto e = p.parse(entry); e != manifest_error::ok) {
        out.clear();
        return detail::manifest_failure(e, line, p.at() + 1, start + p.at(), p.field());
      }
      out.push_back(std::move(entry));
      start = end + 1;
    }
    if (out.empty()) return detail::manifest_failure(manifest_error::empty_manifest, 0, 0, 0);
    if (const manifest_entry* dup = detail::first_duplicate_id(out)) {
      const manifest_result r =
          detail::manifest_failure(manifest_error::duplicate_id, dup->line, 0, dup->offset, manifest_field::id);
      out.clear();
      return r;
    }
    return {};
  } catch (const std::bad_alloc&) {
    out.clear();
    return detail::manifest_failure(manifest_error::out_of_memory, 0, 0, 0);
  }
}

}  // namespace plb::sandbox
