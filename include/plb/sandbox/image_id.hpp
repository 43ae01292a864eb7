// SPDX-License-Identifier: Apache-2.0
// Image IDs: the runtime image is named only by its immutable local ID, "sha256:" + 64 lowercase
// hex digits, as `docker image inspect --format '{{.Id}}'` prints it. Tags, repository digests and
// registry references are mutable or remote, so each is refused with its own reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plb::sandbox {

enum class image_id_error : std::uint8_t {
  ok,
  empty,
  surrounding_whitespace,
  repository_digest,   // name@sha256:...: resolves through a registry
  registry_reference,  // host/name or host:port/name
  tag,                 // name or name:tag: mutable
  missing_prefix,      // 64 hex digits without "sha256:"
  unsupported_algorithm,
  short_id,  // too few digits
  too_long,
  uppercase_hex,
  not_hex,
};

constexpr std::string_view message(image_id_error e) noexcept {
  switch (e) {
    case image_id_error::ok: return "ok";
    case image_id_error::empty: return "empty image ID";
    case image_id_error::surrounding_whitespace: return "whitespace around the image ID";
    case image_id_error::repository_digest:
      return "a repository digest (name@sha256:...) is resolved through a registry; give the local "
             "image ID";
    case image_id_error::registry_reference: return "a repository or registry reference is not an image ID";
    case image_id_error::tag: return "a tag is mutable; give the image ID (sha256:...)";
    case image_id_error::missing_prefix: return "missing the \"sha256:\" prefix";
    case image_id_error::unsupported_algorithm: return "only sha256 image IDs are accepted";
    case image_id_error::short_id: return "a short ID is ambiguous; give all 64 hex digits";
    case image_id_error::too_long: return "more than 64 hex digits";
    case image_id_error::uppercase_hex: return "hex digits must be lowercase";
    case image_id_error::not_hex: return "not a hex digit";
  }
  return "unknown error";
}

// A validated ID. Only parse_image_id makes one (there is no other constructor, not even a
// default one), so holding an image_id proves its syntax.
class image_id {
 public:
  const std::string& str() const noexcept { return text_; }
  friend bool operator==(const image_id&, const image_id&) = default;

 private:
  friend struct image_id_parser;
  explicit image_id(std::string_view text) : text_(text) {}  // 71 bytes: may allocate
  std::string text_;
};

// A default-constructed result is a failure: nothing but the parser hands out an ID.
struct image_id_result {
  std::optional<image_id> id;  // set exactly when error is ok
  image_id_error error = image_id_error::empty;
  std::size_t offset = 0;  // byte where the text went wrong
  explicit operator bool() const noexcept { return error == image_id_error::ok; }
};

namespace detail {
constexpr bool is_lower_hex(char c) noexcept { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
}  // namespace detail

struct image_id_parser {
  static image_id_result parse(std::string_view s) noexcept {
    using E = image_id_error;
    constexpr std::string_view prefix = "sha256:";
    constexpr std::size_t digits = 64;
    if (s.empty()) return fail(E::empty, 0);
    if (detail::is_space(s.front())) return fail(E::surrounding_whitespace, 0);
    if (detail::is_space(s.back())) return fail(E::surrounding_whitespace, s.size() - 1);
    if (const auto at = s.find('@'); at != std::string_view::npos) return fail(E::repository_digest, at);

    const auto colon = s.find(':');
    const auto slash = s.find('/');
    if (slash != std::string_view::npos) return fail(E::registry_reference, slash);
    if (colon == std::string_view::npos) {
      if (s.size() == digits && all_hex(s)) return fail(E::missing_prefix, 0);
      return fail(E::tag, 0);
    }
    const std::string_view algorithm = s.substr(0, colon);
    if (algorithm != "sha256") {
      if (algorithm == "sha384" || algorithm == "sha512") return fail(E::unsupported_algorithm, 0);
      return fail(E::tag, colon);
    }
    const std::string_view hex = s.substr(prefix.size());
    for (std::size_t i = 0; i < hex.size(); ++i) {
      const char c = hex[i];
      if (detail::is_lower_hex(c)) continue;
      const std::size_t at = prefix.size() + i;
      if (c >= 'A' && c <= 'F') return fail(E::uppercase_hex, at);
      return fail(E::not_hex, at);
    }
    if (hex.size() < digits) return fail(E::short_id, s.size());
    if (hex.size() > digits) return fail(E::too_long, prefix.size() + digits);
    image_id_result r;
    r.id.emplace(image_id(s));
    r.error = E::ok;
    return r;
  }

 private:
  static bool all_hex(std::string_view s) noexcept {
    for (char c : s)
      if (!detail::is_lower_hex(c) && !(c >= 'A' && c <= 'F')) return false;
    return true;
  }
  static image_id_result fail(image_id_error e, std::size_t offset) noexcept {
    image_id_result r;
    r.error = e;
    r.offset = offset;
    return r;
  }
};

// noexcept in the fast_float sense: a failed allocation of the 71-byte copy terminates, as for
// any std::string in a noexcept function.
inline image_id_result parse_image_id(std::string_view s) noexcept { return image_id_parser::parse(s); }

}  // namespace plb::sandbox
