// SPDX-License-Identifier: Apache-2.0
// The host's key, which binds what this tool wrote to this host's runs: every single run's
// provenance (`<output>.sandbox.json`, sealed by score and checked by `verify`) and every batch
// record carries an HMAC-SHA256 over its own bytes under it. Anyone who can write to an output
// directory can plant or edit files built from public facts (the manifest, the data digest, the
// default limits, any host path); nobody without the root-only key can make one that verifies.
// Slurm nodes that resume each other's lines, or verify each other's runs, must hold the same key
// file. It lives in the runner (the lowest layer that writes a provenance); the batch layer uses it
// through runner/for_batch.hpp. The file is still called batch.key: that is where it has always
// been, and moving it would orphan every key already made.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace plb::runner {

inline constexpr const char* host_key_name = "batch.key";  // in the state directory
inline constexpr const char* host_key_path = "/var/lib/plb-sandbox/batch.key";
inline constexpr std::size_t host_key_bytes = 32;

class host_key {
 public:
  using bytes_type = std::array<unsigned char, host_key_bytes>;
  using mac_type = std::array<unsigned char, 32>;

  explicit host_key(const bytes_type& bytes) noexcept : bytes_(bytes) {}
  host_key(const host_key&) = default;
  host_key& operator=(const host_key&) = default;
  ~host_key();  // the copy in memory is wiped

  // HMAC-SHA256 of `message` under this key. Throws failure(internal_error) if OpenSSL refuses.
  mac_type mac(std::string_view message) const;

  // Whether `mac_hex` (64 lowercase hex digits) is the MAC of `message`, compared in constant time
  // (CRYPTO_memcmp).
  bool verifies(std::string_view message, std::string_view mac_hex) const;

 private:
  bytes_type bytes_;
};

std::string hex_of(const host_key::mac_type& mac);

// The key file `batch.key` in the directory `dir_fd` (called `dir` in messages). On first use it is
// made from getrandom(2) as an unnamed file of mode 0400 and linked into place: linkat never
// replaces a name, so two first uses at once agree on one key and nobody reads half of one.
// Throws failure(host_refused) with the fix unless it is a regular file, root's, of mode 0400 or
// 0600, and exactly 32 bytes. A reader that only checks what the key sealed (verify) asks for an
// existing key: a host without one sealed nothing, and making one would only seal later runs under
// a stray key (a Slurm node not yet given the shared file).
enum class key_absent : bool { make_it, refuse };
host_key load_host_key(int dir_fd, const std::string& dir, key_absent absent = key_absent::make_it);

// The host's key, host_key_path, after the state directories pass their checks.
host_key this_host_key(key_absent absent = key_absent::make_it);

}  // namespace plb::runner
