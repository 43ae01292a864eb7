// SPDX-License-Identifier: Apache-2.0
#include "runner/score/bundle_snapshot.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "runner/score/bundle_walk.hpp"
#include "support/failure.hpp"
#include "support/no_symlinks.hpp"

namespace plb::runner {

std::string bundle_error::message() const { return path.empty() ? detail : path + ": " + detail; }

void throw_exception_from_error(const bundle_error& e, const boost::source_location&) {
  throw std::runtime_error(e.message());
}

namespace {

using kind = bundle_error::kind;
namespace sb = sandbox;

bundle_result<sb::bundle_listing> listing_of(bundle_walker& w, bool keep_text) {
  auto l = sb::make_bundle_listing(w.take_files(), keep_text);
  if (!l) return bundle_error{kind::system, "", "SHA-256 computation failed", 0};
  return std::move(l.listing);
}

// Removes the partial copy on every way out but success (the run directory's removal would take it
// too, later).
struct partial_copy {
  explicit partial_copy(std::string where) : path(std::move(where)) {}
  partial_copy(const partial_copy&) = delete;
  partial_copy& operator=(const partial_copy&) = delete;
  ~partial_copy() {
    std::error_code ec;
    if (!keep) std::filesystem::remove_all(path, ec);
  }
  std::string path;
  bool keep = false;
};

}  // namespace

sb::verdict bundle_refusal_verdict(const bundle_error& e) noexcept {
  if (e.what == kind::no_space) return sb::verdict::host_refused;
  if (e.what == kind::copy_failed)
    return e.errno_value == EPERM ? sb::verdict::host_refused : sb::verdict::internal_error;
  return sb::verdict::input_refused;
}

bundle_result<unique_fd> open_bundle_root(const std::string& bundle_dir) {
  const auto at = open_path_no_symlinks(bundle_dir);
  if (!at) return bundle_error{kind::not_a_directory, "", at.error().what, at.error().errno_value};
  unique_fd dir(::openat(at->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir && errno == ENOTDIR) return bundle_error{kind::not_a_directory, "", "not a directory", ENOTDIR};
  if (!dir) return bundle_error{kind::system, "", std::string("cannot open it: ") + std::strerror(errno), errno};
  return dir;
}

std::string bundle_named(const char* bundle_field, const std::string& bundle_dir) {
  return std::string(bundle_field) + " " + sb::escape_bundle_path(bundle_dir);
}

void require_reviewed_digest(const std::string& named, const sb::sha256_digest& got, const sb::sha256_digest& expected,
                             const char* digest_field) {
  if (!constant_time_equal(got, expected))
    fail(sb::verdict::input_refused,
         named + " has SHA-256 " + got.hex() + ", not the reviewed " + expected.hex() + " given by " + digest_field);
}

bundle_result<sb::bundle_listing> digest_bundle(const std::string& bundle_dir, const sb::SandboxLimits& limits,
                                                bool keep_text) {
  auto root = open_bundle_root(bundle_dir);
  if (!root) return root.error();
  bundle_walker w(limits, std::nullopt);
  if (auto n = w.walk_dir(root->get(), "", -1); !n) return n.error();
  return listing_of(w, keep_text);
}

bundle_copy copy_bundle(int root_fd, const std::string& what, const sb::sha256_digest& expected,
                        const sb::SandboxLimits& limits, const bundle_copy_place& place, std::uint32_t uid,
                        std::uint32_t gid, const char* digest_field) {
  if (::mkdirat(place.parent_fd, place.name.c_str(), 0700) != 0)
    fail(sb::verdict::internal_error, "cannot create the bundle's copy: " + std::string(std::strerror(errno)));
  partial_copy partial{place.parent_path + "/" + place.name};
  const unique_fd out(::openat(place.parent_fd, place.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!out) fail(sb::verdict::internal_error, "cannot open the bundle's copy: " + std::string(std::strerror(errno)));

  bundle_walker w(limits, bundle_copy_target{place.parent_fd, uid, gid});
  if (auto walked = w.walk_dir(root_fd, "", out.get()); !walked)
    fail(bundle_refusal_verdict(walked.error()), what + ": " + walked.error().message());
  if (::fchown(out.get(), uid, gid) != 0)
    fail(sb::verdict::host_refused, "cannot hand the bundle's copy to the sandbox user (" +
                                        std::string(std::strerror(errno)) + "): run plb-sandbox as root");
  if (::fchmod(out.get(), 0500) != 0)
    fail(sb::verdict::internal_error, "cannot set the bundle copy's mode: " + std::string(std::strerror(errno)));

  std::string stamp = w.source_stamp();
  const auto listing = listing_of(w, false);
  if (!listing) fail(sb::verdict::internal_error, what + ": " + listing.error().message());
  // Before any container exists: the caller starts none until this returns.
  require_reviewed_digest(what, listing->digest, expected, digest_field);
  partial.keep = true;
  return {{partial.path, listing->digest, listing->bytes, listing->files}, std::move(stamp)};
}

bundle_snapshot take_bundle_snapshot(const std::string& bundle_dir, const sb::sha256_digest& expected,
                                     const sb::SandboxLimits& limits, const run_directory& dir, std::uint32_t uid,
                                     std::uint32_t gid, const char* bundle_field, const char* digest_field) {
  const std::string what = bundle_named(bundle_field, bundle_dir);
  auto root = open_bundle_root(bundle_dir);
  if (!root) fail(sb::verdict::input_refused, what + ": " + root.error().message());
  return copy_bundle(root->get(), what, expected, limits, {dir.fd(), dir.path(), bundle_copy_name}, uid, gid,
                     digest_field)
      .snapshot;
}

}  // namespace plb::runner
