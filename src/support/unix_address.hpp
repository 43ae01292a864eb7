// SPDX-License-Identifier: Apache-2.0
// A unix socket's address from its path, for every socket the tool binds or connects to (the
// warden's, the Engine's for the reaper, a run's engine gate): nullopt when the path does not fit
// sun_path, so no caller truncates a path into another one.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>
#include <optional>
#include <string>

namespace plb {

inline std::optional<sockaddr_un> unix_address(const std::string& path) noexcept {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return std::nullopt;
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

}  // namespace plb
