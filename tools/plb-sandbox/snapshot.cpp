#include "snapshot.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "failure.hpp"
#include "file_io.hpp"

namespace plb::tool {
namespace {

struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void refuse(const std::string& what) { fail(sandbox::verdict::input_refused, what); }

}  // namespace

verified_script read_script(const std::string& model_path, const sandbox::sha256_digest& expected, std::size_t max_bytes) {
  fd_guard in{::open(model_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
  if (in.fd < 0) refuse("--model " + model_path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse("--model " + model_path + ": not a regular file");

  // One bounded read: one byte past the limit is enough to know the file is too large, and what
  // is hashed is exactly what is copied, whatever happens to the file meanwhile.
  std::string data(max_bytes + 1, '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(in.fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse("--model " + model_path + ": " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes)
    refuse("--model " + model_path + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB script limit");
  data.resize(got);

  const auto digest = sandbox::sha256_of(data);
  if (!digest) fail(sandbox::verdict::internal_error, "SHA-256 of the script failed");
  if (!constant_time_equal(digest.digest, expected))
    refuse("--model " + model_path + " has SHA-256 " + digest.digest.hex() + ", not the reviewed " + expected.hex() +
           " given by --model-sha256");
  return {std::move(data), digest.digest};
}

script_snapshot write_snapshot(const verified_script& script, const std::string& dir, std::uint32_t uid, std::uint32_t gid) {
  const std::string& data = script.bytes;
  script_snapshot snap;
  snap.digest = script.digest;
  snap.bytes = data.size();
  snap.path = dir + "/model.py";

  fd_guard out{::open(snap.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400)};
  if (out.fd < 0) fail(sandbox::verdict::internal_error, "cannot create the snapshot: " + std::string(std::strerror(errno)));
  if (const int e = write_all(out.fd, data))
    fail(sandbox::verdict::internal_error, "cannot write the snapshot: " + std::string(std::strerror(e)));
  // The sandbox user must read its only file; nobody else on the host needs to.
  if (::fchown(out.fd, uid, gid) != 0)
    fail(sandbox::verdict::host_refused, "cannot hand the snapshot to the sandbox user (" + std::string(std::strerror(errno)) +
                                             "): run plb-sandbox as root");
  if (::fchmod(out.fd, 0400) != 0)
    fail(sandbox::verdict::internal_error, "cannot set the snapshot's mode: " + std::string(std::strerror(errno)));
  return snap;
}

}  // namespace plb::tool
