// SPDX-License-Identifier: Apache-2.0
#include "warden_daemon.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "support/failure.hpp"

namespace plb::cli {

unique_fd claim_directory(const std::string& socket_path, const char* lock_name, std::chrono::milliseconds wait) {
  const std::string dir = socket_path.substr(0, socket_path.rfind('/'));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    fail(sandbox::verdict::host_refused, "cannot create " + dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
    fail(sandbox::verdict::host_refused, dir + " must be a real directory, root's, writable by root only");
  const std::string path = dir + "/" + lock_name;
  unique_fd lock(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock) fail(sandbox::verdict::host_refused, "cannot open " + path + ": " + std::strerror(errno));
  const auto until = std::chrono::steady_clock::now() + wait;
  while (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() >= until) return unique_fd{};
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return lock;
}

}  // namespace plb::cli
