// SPDX-License-Identifier: Apache-2.0
// The bundle snapshot's copying walk alone (src/runner/score/bundle_walk.hpp, as
// take_bundle_snapshot drives it), for ci/bench/bench-bundle: bundle_copy_bench BUNDLE OUT copies
// BUNDLE into the empty directory OUT, hashing every byte as it copies, and prints the digest, the
// bytes, the files and the process's peak RSS. The run directory (root's, under /var/lib) is left
// out: the copy is the same code, into a directory the bench owns.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "runner/score/bundle_walk.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bundle_copy_bench BUNDLE OUT\n");
    return 2;
  }
  const plb::unique_fd in(::open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const plb::unique_fd out(::open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!in || !out) {
    std::perror("open");
    return 2;
  }
  const plb::sandbox::SandboxLimits limits;
  plb::runner::bundle_walker w(limits, plb::runner::bundle_copy_target{out.get(), ::getuid(), ::getgid()});
  if (const auto n = w.walk_dir(in.get(), "", out.get()); !n) {
    std::fprintf(stderr, "refused: %s\n", n.error().message().c_str());
    return 4;
  }
  const auto l = plb::sandbox::make_bundle_listing(w.take_files(), false);
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  std::printf("%s bytes=%llu files=%llu peak_rss_kib=%ld\n", l.listing.digest.hex().c_str(),
              static_cast<unsigned long long>(l.listing.bytes), static_cast<unsigned long long>(l.listing.files),
              u.ru_maxrss);
  return 0;
}
