// SPDX-License-Identifier: Apache-2.0
#include "runner/score/snapshot.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/no_symlinks.hpp"

namespace plb::runner {
namespace {

[[noreturn]] void refuse(const std::string& what) { fail(sandbox::verdict::input_refused, what); }

}  // namespace

verified_script read_script(const std::string& model_path, const sandbox::sha256_digest& expected,
                            std::size_t max_bytes, const field_names& names) {
  const std::string what = names.model + (" " + model_path);
  // Through no symbolic link, and refused by its size before a byte of a larger file is read.
  const auto in = open_bounded_file(model_path, max_bytes);
  if (!in && is_too_large(in.error()))
    refuse(what + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB script limit");
  if (!in) refuse(what + ": " + in.error().what);
  // One bounded read: what is hashed is exactly what is copied, whatever happens to the file.
  auto r = read_up_to(in->fd.get(), max_bytes);
  if (!r && is_too_large(r.error()))
    refuse(what + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB script limit");
  if (!r) refuse(what + ": " + r.error().what);

  return verify_script(std::move(*r), expected, max_bytes, what, names);
}

verified_script verify_script(std::string bytes, const sandbox::sha256_digest& expected, std::size_t max_bytes,
                              const std::string& what, const field_names& names) {
  if (bytes.size() > max_bytes)
    refuse(what + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB script limit");
  const auto digest = sandbox::sha256_of(bytes);
  if (!digest) fail(sandbox::verdict::internal_error, "SHA-256 of the script failed");
  if (!constant_time_equal(digest.digest, expected))
    refuse(what + " has SHA-256 " + digest.digest.hex() + ", not the reviewed " + expected.hex() + " given by " +
           names.model_sha256);
  return {std::move(bytes), digest.digest};
}

script_snapshot write_snapshot(const verified_script& script, const run_directory& dir, std::uint32_t uid,
                               std::uint32_t gid) {
  const std::string& data = script.bytes;
  script_snapshot snap;
  snap.digest = script.digest;
  snap.bytes = data.size();
  snap.path = dir.path() + "/" + snapshot_file_name;

  // Relative to the run directory's descriptor: nothing on the path can be swapped meanwhile.
  const unique_fd out(
      ::openat(dir.fd(), snapshot_file_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
  if (!out) fail(sandbox::verdict::internal_error, "cannot create the snapshot: " + std::string(std::strerror(errno)));
  if (const auto written = write_all(out.get(), data); !written)
    fail(sandbox::verdict::internal_error, "cannot write the snapshot: " + written.error().what);
  // The sandbox user must read its only file; nobody else on the host needs to.
  if (::fchown(out.get(), uid, gid) != 0)
    fail(sandbox::verdict::host_refused, "cannot hand the snapshot to the sandbox user (" +
                                             std::string(std::strerror(errno)) + "): run plb-sandbox as root");
  if (::fchmod(out.get(), 0400) != 0)
    fail(sandbox::verdict::internal_error, "cannot set the snapshot's mode: " + std::string(std::strerror(errno)));
  return snap;
}

}  // namespace plb::runner
