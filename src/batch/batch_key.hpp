// SPDX-License-Identifier: Apache-2.0
// The key that binds a batch's records to this host's runs: every record carries an HMAC-SHA256
// over its own bytes, and a success record also carries the digests of its CSV and provenance,
// so resume keeps a line's results only when a run of this tool, holding this key, wrote them.
// Anyone who can write to an output directory can plant files built from public facts (the
// manifest, the data digest, the default limits); nobody without the root-only key can plant a
// record that verifies. Slurm nodes that resume each other's lines must hold the same key file.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace plb::batch {

inline constexpr const char* batch_key_name = "batch.key";  // in the state directory
inline constexpr const char* batch_key_path = "/var/lib/plb-sandbox/batch.key";
inline constexpr std::size_t batch_key_bytes = 32;

class batch_key {
 public:
  using bytes_type = std::array<unsigned char, batch_key_bytes>;
  using mac_type = std::array<unsigned char, 32>;

  explicit batch_key(const bytes_type& bytes) noexcept : bytes_(bytes) {}
  batch_key(const batch_key&) = default;
  batch_key& operator=(const batch_key&) = default;
  ~batch_key();  // the copy in memory is wiped

  // HMAC-SHA256 of `message` under this key. Throws failure(internal_error) if OpenSSL refuses.
  mac_type mac(std::string_view message) const;

  // Whether `mac_hex` (64 lowercase hex digits) is the MAC of `message`, compared in constant time.
  bool verifies(std::string_view message, std::string_view mac_hex) const;

 private:
  bytes_type bytes_;
};

std::string hex_of(const batch_key::mac_type& mac);

// The key file `batch.key` in the directory `dir_fd` (called `dir` in messages). On first use it is
// made from getrandom(2) as an unnamed file of mode 0400 and linked into place: linkat never
// replaces a name, so two first uses at once agree on one key and nobody reads half of one.
// Throws failure(host_refused) with the fix unless it is a regular file, root's, of mode 0400 or
// 0600, and exactly 32 bytes.
batch_key load_batch_key(int dir_fd, const std::string& dir);

// The host's key, batch_key_path, after the state directories pass their checks.
batch_key host_batch_key();

}  // namespace plb::batch
