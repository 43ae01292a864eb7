// SPDX-License-Identifier: Apache-2.0
// Claims: how a queued backend's workers share a batch's lines without running one twice. A worker
// that takes a line creates `queue/claims/<id>` in the output directory, atomically and
// exclusively: it writes the claim whole to a dot-named temporary and link(2)s it to the line's
// name, which fails with EEXIST when another worker holds the line (link is atomic on NFS, where
// O_EXCL is not always). The claim names the worker (its backend's identity), its node and the time
// it was taken. Once the line's signed record is written, its worker removes the claim: a claim is
// never a result, only "someone is running this". A claim whose worker the scheduler no longer
// runs, and whose sandbox's deadline has passed (the deadline warden has removed it by then), is
// moved to `queue/lost/` by the submitter, and another worker takes the line. Workers report
// themselves in `queue/workers/<worker>`. A batch directory an earlier release started holds the
// same names under `slurm/`: they are read and written there, since its workers may still run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"
#include "support/file_io.hpp"

namespace plb::batch {

// A node or worker name as the tool writes it anywhere: 1 to 64 bytes of [A-Za-z0-9._-], the first
// a letter or digit (host names and Slurm's "<job>_<task>" are).
bool is_safe_name(std::string_view s);

struct claim_info {
  std::string worker, node;
  std::int64_t claimed_at = 0;  // seconds since the epoch
};

// "worker=<w> node=<n> claimed_at=<s>\n"; parse_claim accepts exactly that (nullopt otherwise).
std::string render_claim(const claim_info& c);
std::optional<claim_info> parse_claim(std::string_view text);

// What a worker says about itself: "node=<n>\nstate=<running|refused|done>\nmessage=<one line>\n".
std::string render_worker_report(const worker_report& w);
std::optional<worker_report> parse_worker_report(std::string_view text, const std::string& worker);

// The names in a directory open as `fd`, without dot-named ones (temporaries).
std::vector<std::string> list_names(int fd);

class claim_dir {
 public:
  // DIR/queue/{claims,lost,workers} (DIR/slurm/... in an earlier release's batch directory),
  // created 0700 and checked like the output directory.
  explicit claim_dir(const output_dir& dir);
  // The directory the workers share, for messages: DIR/queue (or DIR/slurm).
  const std::string& path() const noexcept { return path_; }

  // True if this worker now holds the line; false if another claim is there.
  bool try_claim(const std::string& id, const claim_info& claim) const;
  // The holder's release, once the line's record is written (or it found one already there).
  void release(const std::string& id) const;
  std::optional<claim_info> read(const std::string& id) const;
  bool exists(const std::string& id) const;
  std::vector<std::string> held() const { return list_names(claims_.get()); }
  // The submitter's hand-over of a dead worker's line: the claim goes to lost/.
  bool move_to_lost(const std::string& id, const claim_info& claim) const;

  // A file of the shared directory itself (the submitter's list of lines), replaced atomically; read
  // back whole.
  void put(const std::string& name, const std::string& text) const;
  result<std::string> get(const std::string& name, std::size_t max_bytes) const;

  void report(const worker_report& w) const;
  std::vector<worker_report> reports() const;

 private:
  std::string path_;
  uid_t owner_;
  unique_fd shared_, claims_, lost_, workers_;
};

}  // namespace plb::batch
