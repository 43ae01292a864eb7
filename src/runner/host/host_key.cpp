// SPDX-License-Identifier: Apache-2.0
#include "runner/host/host_key.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runner/state/state_dirs.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

[[noreturn]] void refuse(const std::string& path, const std::string& why, const std::string& fix) {
  fail(verdict::host_refused, "the host key " + path + " " + why + ": " + fix);
}

std::string removal_fix(const std::string& path) {
  return "remove it (rm " + path +
         ") and the next batch makes a new key; records made with the old key are then not trusted";
}

void fill_random(host_key::bytes_type& bytes, const std::string& path) {
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(path, std::string("cannot be made: getrandom: ") + std::strerror(errno), "check the kernel");
    got += static_cast<std::size_t>(n);
  }
}

// An unnamed file, written whole, then linked into place. O_TMPFILE + linkat is the exclusive
// create (linkat never replaces a name, like O_EXCL) without O_EXCL's window in which another
// first use could read a key that is not yet written: EEXIST means the other use won, and its key
// stands.
void create_key(int dir_fd, const std::string& dir, const std::string& path) {
  const unique_fd fd(::openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0400));
  if (!fd) refuse(path, std::string("cannot be created: ") + std::strerror(errno), "check " + dir);
  host_key::bytes_type bytes{};
  fill_random(bytes, path);
  const auto written = write_all(fd.get(), std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  OPENSSL_cleanse(bytes.data(), bytes.size());
  if (!written || ::fchmod(fd.get(), 0400) != 0 || ::fsync(fd.get()) != 0)
    refuse(path, std::string("cannot be written: ") + std::strerror(!written ? written.error().errno_value : errno),
           "check " + dir);
  const std::string self = "/proc/self/fd/" + std::to_string(fd.get());
  if (::linkat(AT_FDCWD, self.c_str(), dir_fd, host_key_name, AT_SYMLINK_FOLLOW) != 0 && errno != EEXIST)
    refuse(path, std::string("cannot be linked into place: ") + std::strerror(errno), "check " + dir);
  (void)::fsync(dir_fd);
}

void check_key_file(const struct stat& st, const std::string& path) {
  if (!S_ISREG(st.st_mode))
    refuse(path, "is not a regular file (a symlink, a directory or a device)", removal_fix(path));
  if (st.st_uid != 0)
    refuse(path, "is owned by uid " + std::to_string(st.st_uid) + ", not root",
           "if it is your cluster's key, chown root:root " + path + "; else " + removal_fix(path));
  const unsigned mode = st.st_mode & 07777;
  if (mode != 0400 && mode != 0600) {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode);
    refuse(path, std::string("has mode ") + octal + " (0400 or 0600 only: it must stay secret)", "chmod 0400 " + path);
  }
  if (st.st_size != static_cast<off_t>(host_key_bytes))
    refuse(path, "is " + std::to_string(st.st_size) + " bytes, not " + std::to_string(host_key_bytes),
           removal_fix(path));
}

}  // namespace

host_key::~host_key() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

host_key::mac_type host_key::mac(std::string_view message) const {
  mac_type out{};
  unsigned int length = 0;
  if (::HMAC(EVP_sha256(), bytes_.data(), static_cast<int>(bytes_.size()),
             reinterpret_cast<const unsigned char*>(message.data()), message.size(), out.data(), &length) == nullptr ||
      length != out.size())
    fail(verdict::internal_error, "HMAC-SHA256 failed in OpenSSL");
  return out;
}

bool host_key::verifies(std::string_view message, std::string_view mac_hex) const {
  if (mac_hex.size() != 64) return false;
  mac_type claimed{};
  for (std::size_t i = 0; i < claimed.size(); ++i) {
    unsigned value = 0;
    for (const char c : mac_hex.substr(2 * i, 2)) {
      if (c >= '0' && c <= '9') {
        value = value * 16 + static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        value = value * 16 + static_cast<unsigned>(c - 'a' + 10);
      } else {
        return false;
      }
    }
    claimed[i] = static_cast<unsigned char>(value);
  }
  const mac_type actual = mac(message);
  return CRYPTO_memcmp(actual.data(), claimed.data(), actual.size()) == 0;
}

std::string hex_of(const host_key::mac_type& mac) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (const unsigned char b : mac) {
    s += digits[b >> 4];
    s += digits[b & 0xf];
  }
  return s;
}

// A key file that cannot be opened or read for a reason of the file system's (EIO, a root-squashed
// mount) is not to be removed: that would orphan every record and provenance it sealed.
std::string io_fix(const std::string& dir) { return "check the file system of " + dir + " (do not remove the key)"; }

// EACCES or EPERM is not the file system's: the key is root's (mode 0400), and this user is not.
[[noreturn]] void refuse_errno(const std::string& path, const std::string& what, int err, const std::string& fix) {
  if (err == EACCES || err == EPERM)
    refuse(path, what + ": permission denied to uid " + std::to_string(::geteuid()) + " (the key is root's, mode 0400)",
           "only root may seal or check a seal: run plb-sandbox verify, batch and sandbox-score as root (sudo)");
  refuse(path, what + ": " + std::strerror(err), fix);
}

host_key load_host_key(int dir_fd, const std::string& dir, key_absent absent) {
  const std::string path = dir + "/" + host_key_name;
  struct stat st {};
  if (::fstatat(dir_fd, host_key_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) refuse_errno(path, "cannot be checked", errno, "check " + dir);
    if (absent == key_absent::refuse)
      refuse(path, "does not exist: this host has sealed nothing",
             "verify the run on the host that scored it, or install that host's key file here (root's, mode 0400)");
    create_key(dir_fd, dir, path);
  }
  // O_PATH and fstat first: nothing but the checked regular file is ever opened for reading.
  const unique_fd handle(::openat(dir_fd, host_key_name, O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!handle || ::fstat(handle.get(), &st) != 0) refuse_errno(path, "cannot be opened", errno, io_fix(dir));
  check_key_file(st, path);
  const std::string self = "/proc/self/fd/" + std::to_string(handle.get());
  const unique_fd fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd) refuse_errno(path, "cannot be read", errno, io_fix(dir));
  auto r = read_up_to(fd.get(), host_key_bytes);
  if (!r) refuse_errno(path, "cannot be read", r.error().errno_value, io_fix(dir));
  if (r->size() != host_key_bytes)
    refuse(path, "is not " + std::to_string(host_key_bytes) + " bytes", removal_fix(path));
  host_key::bytes_type bytes{};
  std::memcpy(bytes.data(), r->data(), bytes.size());
  OPENSSL_cleanse(r->data(), r->size());
  const host_key key(bytes);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return key;
}

host_key this_host_key(key_absent absent) {
  const auto dir = open_state_dir();
  if (!dir) fail(dir.error());
  return load_host_key(dir->get(), state_dir, absent);
}

}  // namespace plb::runner
