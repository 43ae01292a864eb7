// SPDX-License-Identifier: Apache-2.0
// A listening unix socket at a path, for the unit tests' stand-in daemons.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <string>

namespace plb::test {

// The listening socket's descriptor (close-on-exec), or -1 when PATH cannot be bound.
inline int listen_on_unix(const std::string& path, int backlog) {
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, backlog) != 0) {
    if (listener >= 0) ::close(listener);
    return -1;
  }
  return listener;
}

}  // namespace plb::test
