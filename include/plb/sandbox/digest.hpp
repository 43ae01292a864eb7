// SPDX-License-Identifier: Apache-2.0
// SHA-256 digests over OpenSSL's EVP interface: parsing an operator's hex digest, hashing a bounded
// buffer or a stream of chunks, and comparing in constant time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace plb::sandbox {

enum class digest_error : std::uint8_t {
  ok,
  empty,
  too_short,
  too_long,
  not_hex,
  hash_failed,  // OpenSSL refused (out of memory, FIPS policy)
};

constexpr std::string_view message(digest_error e) noexcept {
  switch (e) {
    case digest_error::ok: return "ok";
    case digest_error::empty: return "empty digest";
    case digest_error::too_short: return "fewer than 64 hex digits";
    case digest_error::too_long: return "more than 64 hex digits";
    case digest_error::not_hex: return "not a hex digit";
    case digest_error::hash_failed: return "SHA-256 computation failed";
  }
  return "unknown error";
}

class sha256_digest {
 public:
  static constexpr std::size_t size = 32;
  using bytes_type = std::array<std::uint8_t, size>;

  constexpr sha256_digest() noexcept = default;
  constexpr explicit sha256_digest(const bytes_type& b) noexcept : bytes_(b) {}

  const bytes_type& bytes() const noexcept { return bytes_; }

  std::string hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(size * 2, '0');
    for (std::size_t i = 0; i < size; ++i) {
      s[2 * i] = digits[bytes_[i] >> 4];
      s[2 * i + 1] = digits[bytes_[i] & 0xf];
    }
    return s;
  }

  // Constant time, so that comparing against a secret reference leaks no prefix length.
  friend bool constant_time_equal(const sha256_digest& a, const sha256_digest& b) noexcept {
    return CRYPTO_memcmp(a.bytes_.data(), b.bytes_.data(), size) == 0;
  }

 private:
  bytes_type bytes_{};
};

struct digest_result {
  sha256_digest digest;
  digest_error error = digest_error::ok;
  std::size_t offset = 0;
  explicit operator bool() const noexcept { return error == digest_error::ok; }
};

// Exactly 64 hex digits, either case (sha256sum prints lowercase; case carries no meaning here).
constexpr digest_result parse_sha256_hex(std::string_view s) noexcept {
  if (s.empty()) return {{}, digest_error::empty, 0};
  sha256_digest::bytes_type b{};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    int v = -1;
    if (c >= '0' && c <= '9')
      v = c - '0';
    else if (c >= 'a' && c <= 'f')
      v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v = c - 'A' + 10;
    if (v < 0) return {{}, digest_error::not_hex, i};
    if (i >= 2 * sha256_digest::size) return {{}, digest_error::too_long, i};
    b[i / 2] = static_cast<std::uint8_t>(b[i / 2] | (i % 2 == 0 ? v << 4 : v));
  }
  if (s.size() < 2 * sha256_digest::size) return {{}, digest_error::too_short, s.size()};
  return {sha256_digest{b}, digest_error::ok, 0};
}

// Incremental hashing, for input read in chunks.
class sha256_hasher {
 public:
  sha256_hasher() noexcept : ctx_(EVP_MD_CTX_new()) {
    ok_ = ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
  }

  void update(std::span<const std::byte> data) noexcept {
    if (ok_ && !data.empty()) ok_ = EVP_DigestUpdate(ctx_.get(), data.data(), data.size()) == 1;
  }
  void update(std::string_view data) noexcept { update(std::as_bytes(std::span{data})); }

  // Ends the computation; the hasher is spent afterwards.
  digest_result finish() noexcept {
    sha256_digest::bytes_type b{};
    unsigned int n = 0;
    if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), b.data(), &n) != 1 || n != b.size()) {
      ok_ = false;
      return {{}, digest_error::hash_failed, 0};
    }
    ok_ = false;
    return {sha256_digest{b}, digest_error::ok, 0};
  }

 private:
  struct ctx_free {
    void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, ctx_free> ctx_;
  bool ok_ = false;
};

inline digest_result sha256_of(std::span<const std::byte> data) noexcept {
  sha256_hasher h;
  h.update(data);
  return h.finish();
}
inline digest_result sha256_of(std::string_view data) noexcept { return sha256_of(std::as_bytes(std::span{data})); }

}  // namespace plb::sandbox
