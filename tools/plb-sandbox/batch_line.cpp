// One line of a batch: where it starts (resume), how it runs and what it leaves (its record).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "batch_engine.hpp"
#include "batch_resume.hpp"
#include "failure.hpp"
#include "one_line.hpp"

namespace plb::tool {

using sandbox::verdict;

unique_fd open_output_dir(const std::string& dir, bool lock) {
  const auto refuse = [&](const std::string& why) { fail(verdict::usage_error, "--output-dir " + dir + ": " + why); };
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) refuse(std::strerror(errno));
  unique_fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) refuse(errno == ENOTDIR || errno == ELOOP ? "not a directory (symlinks are refused)" : std::strerror(errno));
  if (!lock) return fd;
  unique_fd lock_fd(::openat(fd.get(), ".plb-batch.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock_fd) refuse(std::string("cannot create its lock file: ") + std::strerror(errno));
  if (::flock(lock_fd.get(), LOCK_EX | LOCK_NB) != 0)
    refuse(errno == EWOULDBLOCK ? "another batch is writing to it" : std::strerror(errno));
  return lock_fd;  // the lock lasts as long as this descriptor
}

bool is_failure(const line_outcome& o) { return is_verdict(o.state) && o.state != sandbox::name(verdict::success); }

batch_start start_batch(const batch_config& config, const batch_plan& plan) {
  batch_start s;
  data_digests digests;
  s.outcomes.resize(plan.items.size());
  s.data_sha256.resize(plan.items.size());
  for (const batch_item& item : plan.items) {
    s.data_sha256[item.index] = digests.of(item.request.data_path);
    const auto decision =
        decide_resume(item, config.output_dir, config.retry, request_fingerprint(item, s.data_sha256[item.index]));
    if (decision.action == resume_action::run) {
      s.outcomes[item.index].state = "pending";
      s.to_run.push_back(item.index);
    } else {
      s.outcomes[item.index] = decision.outcome;
    }
  }
  return s;
}

line_outcome run_line(const batch_item& item, const run_hooks& hooks, const std::string& output_dir,
                      const std::string& data_sha256) {
  // An earlier record of this line (a failure being retried) goes first: a stopped retry must
  // not leave the old verdict standing as if it were this run's.
  ::unlink(record_path(output_dir, item.id).c_str());
  const sandbox::scoring_result r = score_to_result(item.request, hooks);
  line_outcome o;
  if (r.stopped_by) {
    o.state = "interrupted";
    o.message = r.message;
    return o;
  }
  o.state = std::string(sandbox::name(r.outcome));
  o.exit_code = r.exit_code;
  o.message = one_line(r.message);
  o.usage = r.usage;
  boost::json::object fingerprint = request_fingerprint(item, data_sha256);
  if (r.outcome == verdict::success) {
    if (const auto prov = read_json_object(r.provenance_path)) {
      fingerprint = fingerprint_of_provenance(*prov);  // the digest of the data as the run read it
      if (const auto* d = prov->if_contains("predictions_sha256"); d && d->is_string())
        o.predictions_sha256 = std::string(d->as_string());
    }
  }
  write_record(output_dir, item, o, fingerprint);
  return o;
}

}  // namespace plb::tool
