#include "batch_resume.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "batch_records.hpp"
#include "file_io.hpp"
#include "plb/sandbox/digest.hpp"

namespace plb::tool {
namespace {

using sandbox::verdict;

// What a script cannot cause: the host, the daemon or the tool failed under the run.
constexpr std::array host_failures{verdict::host_refused, verdict::runtime_failed, verdict::cleanup_failed,
                                   verdict::internal_error};

std::string file_digest(const std::string& path) {
  const opened_file file = open_regular_file(path);
  if (!file) return {};
  sandbox::sha256_hasher hasher;
  std::array<char, 1 << 16> buf{};
  while (true) {
    const ssize_t n = ::read(file.fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {};
    if (n == 0) break;
    hasher.update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  const auto d = hasher.finish();
  return d ? d.digest.hex() : std::string();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 || errno != ENOENT;
}

resume_decision conflict(const std::string& why) {
  resume_decision d;
  d.action = resume_action::conflict;
  d.outcome.state = "not_run";
  d.outcome.message = why + "; nothing is overwritten: move the line's files away to run it again";
  return d;
}

// Both outputs exist: they are kept if they are this line's, else the line is in conflict.
resume_decision check_outputs(const std::string& csv, const std::string& provenance,
                              const boost::json::object& fingerprint) {
  const auto prov = read_json_object(provenance);
  if (!prov) return conflict(provenance + " is not a provenance file");
  if (const auto key = first_difference(fingerprint_of_provenance(*prov), fingerprint); !key.empty())
    return conflict("earlier outputs were made for a different request (" + key + " differs)");
  const auto* digest = prov->if_contains("predictions_sha256");
  if (!digest || !digest->is_string() || file_digest(csv) != digest->as_string())
    return conflict(csv + " does not match the digest in its provenance");
  resume_decision d;
  d.action = resume_action::keep;
  d.outcome.state = std::string(sandbox::name(verdict::success));
  d.outcome.exit_code = 0;
  d.outcome.message = "kept from an earlier run (its provenance matches this line)";
  d.outcome.predictions_sha256 = std::string(digest->as_string());
  d.outcome.usage = usage_from_json(prov->if_contains("usage"));
  return d;
}

}  // namespace

const std::string& data_digests::of(const std::string& path) {
  const auto it = known_.find(path);
  if (it != known_.end()) return it->second;
  return known_.emplace(path, file_digest(path)).first->second;
}

bool retried(const std::string& verdict_name, retry_policy policy) {
  if (verdict_name == sandbox::name(verdict::success) || policy == retry_policy::none) return false;
  if (policy == retry_policy::all_failures) return true;
  for (const verdict v : host_failures)
    if (sandbox::name(v) == verdict_name) return true;
  return false;
}

resume_decision decide_resume(const batch_item& item, const std::string& dir, retry_policy policy,
                              const boost::json::object& fingerprint) {
  const std::string csv = item.request.output_path;
  const std::string provenance = csv + ".sandbox.json";
  const bool has_csv = exists(csv), has_provenance = exists(provenance);
  if (has_csv && has_provenance) return check_outputs(csv, provenance, fingerprint);
  if (has_csv || has_provenance)
    return conflict((has_csv ? csv : provenance) + " exists without " + (has_csv ? provenance : csv));
  const auto record = read_record(dir, item.id);
  if (!record) return {};
  if (const auto key = first_difference(record->fingerprint, fingerprint); !key.empty())
    return conflict("an earlier record of this ID was made for a different request (" + key + " differs)");
  // A success whose outputs were moved away runs again; a failure is kept unless retried.
  if (record->outcome.state == sandbox::name(verdict::success) || retried(record->outcome.state, policy)) return {};
  resume_decision d;
  d.action = resume_action::keep;
  d.outcome = record->outcome;
  return d;
}

}  // namespace plb::tool
