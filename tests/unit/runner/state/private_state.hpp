// SPDX-License-Identifier: Apache-2.0
// The state directories' own paths (/var/lib/plb-sandbox, /var/cache/plb-sandbox) are fixed, and
// the host's are in use by real runs. A state test therefore runs its body in a forked child with
// a mount namespace of its own, where empty file systems cover /var/lib and /var/cache: the real
// code on the real paths, seen by nobody else, gone with the child.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>

#include "../../../harness/forked_child.hpp"

namespace plb::test {

// Runs `body` in a child under private, empty /var/lib and /var/cache; "" when it returned "", or
// what went wrong (its words, or the set-up's). Needs root, as the state directories do.
inline std::string in_private_state(const std::function<std::string()>& body) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return "pipe: " + std::string(std::strerror(errno));
  forked_child child([&] {
    ::close(report[0]);
    std::string said;
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      said = "no private mount namespace: " + std::string(std::strerror(errno));
    for (const char* where : {"/var/lib", "/var/cache"})
      if (said.empty() && ::mount("plb-state-test", where, "tmpfs", 0, "mode=0755") != 0)
        said = std::string("tmpfs on ") + where + ": " + std::strerror(errno);
    if (said.empty()) {
      try {
        said = body();
      } catch (const std::exception& e) {
        said = std::string("threw: ") + e.what();
      }
    }
    if (said.empty()) ::_exit(0);
    (void)!::write(report[1], said.data(), said.size());
    ::_exit(1);
  });
  ::close(report[1]);
  std::string said;
  char buffer[4096];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<std::size_t>(n));
  ::close(report[0]);
  const int status = child.wait();
  if (!WIFEXITED(status)) return "the child did not exit (status " + std::to_string(status) + ")";
  if (WEXITSTATUS(status) != 0 && said.empty()) return "the child failed without a word";
  return said;
}

}  // namespace plb::test
