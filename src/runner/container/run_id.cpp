// SPDX-License-Identifier: Apache-2.0
#include "runner/container/run_id.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>

#include "support/failure.hpp"

namespace plb::runner {

std::string new_run_id() {
  std::array<std::uint8_t, 16> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(sandbox::verdict::internal_error, "getrandom failed");
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 0xf];
  }
  return s;
}

}  // namespace plb::runner
