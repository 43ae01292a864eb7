// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_resume.hpp"

#include <array>

#include "batch/batch_records.hpp"
#include "plb/sandbox/digest.hpp"
#include "support/dir_files.hpp"
#include "support/no_symlinks.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

// What a script cannot cause: the host, the daemon or the tool failed under the run.
constexpr std::array host_failures{verdict::host_refused, verdict::runtime_failed, verdict::cleanup_failed,
                                   verdict::internal_error};

resume_decision conflict(const std::string& why) {
  resume_decision d;
  d.action = resume_action::conflict;
  d.outcome.state = "not_run";
  d.outcome.message = why + "; nothing is overwritten: move the line's files away to run it again";
  return d;
}

resume_decision keep(line_outcome o) { return {resume_action::keep, std::move(o)}; }

// A trusted success record and both outputs: kept only if the outputs are the ones it vouches for.
resume_decision keep_success(const output_dir& dir, const batch_item& item, const stored_record& r,
                             const boost::json::object& fingerprint) {
  const auto f = examine_outputs(dir, item.id);
  if (!f) return conflict(f.error().what);
  if (f->predictions_sha256 != r.outcome.predictions_sha256)
    return conflict(dir.path + "/" + csv_name(item.id) + " is not the file its record vouches for");
  if (f->provenance_sha256 != r.provenance_sha256)
    return conflict(dir.path + "/" + provenance_name(item.id) + " is not the file its record vouches for");
  if (const auto key = first_difference(f->fingerprint, fingerprint); !key.empty())
    return conflict("earlier outputs were made for a different request (" + key + " differs)");
  line_outcome o = r.outcome;
  o.message = "kept from an earlier run (its signed record and both outputs match this line)";
  return keep(std::move(o));
}

}  // namespace

const std::string& data_digests::of(const std::string& path) {
  const auto it = known_.find(path);
  if (it != known_.end()) return it->second;
  std::string digest;
  // Through no symbolic link, as the run itself reads it: "" (the line fails when it runs) otherwise.
  if (auto d = digest_bounded_file(path, unbounded_size)) digest = std::move(*d);
  return known_.emplace(path, std::move(digest)).first->second;
}

bool retried(const std::string& verdict_name, retry_policy policy) {
  if (verdict_name == sandbox::name(verdict::success) || policy == retry_policy::none) return false;
  if (policy == retry_policy::all_failures) return true;
  for (const verdict v : host_failures)
    if (sandbox::name(v) == verdict_name) return true;
  return false;
}

result<output_facts> examine_outputs(const output_dir& dir, const std::string& id) {
  output_facts f;
  const std::string csv = dir.path + "/" + csv_name(id), provenance = dir.path + "/" + provenance_name(id);
  const auto csv_digest = digest_own_file(dir.fd.get(), csv_name(id), dir.owner);
  if (!csv_digest) return problem::says(csv + ": " + csv_digest.error().what);
  f.predictions_sha256 = *csv_digest;
  // Read once: the digest and the parse are of the same bytes.
  const auto text = read_own_file(dir.fd.get(), provenance_name(id), dir.owner, max_record_bytes);
  if (!text) return problem::says(provenance + ": " + text.error().what);
  f.provenance_sha256 = sandbox::sha256_of(*text).digest.hex();
  const auto o = parse_json_object(*text);
  if (!o) return problem::says(provenance + " is not a provenance file");
  const auto* digest = o->if_contains("predictions_sha256");
  if (!digest || !digest->is_string() || digest->get_string() != f.predictions_sha256)
    return problem::says(csv + " does not match the digest in its provenance");
  f.fingerprint = fingerprint_of_provenance(*o);
  f.usage = usage_from_json(o->if_contains("usage"));
  if (const auto* b = o->if_contains("bundle_bytes"); b && b->is_uint64())
    f.bundle_bytes = b->get_uint64();
  else if (b && b->is_int64() && b->get_int64() >= 0)
    f.bundle_bytes = static_cast<std::uint64_t>(b->get_int64());
  return f;
}

resume_decision decide_resume(const batch_item& item, const output_dir& dir, retry_policy policy,
                              const boost::json::object& fingerprint) {
  const std::array<std::string, 3> names{csv_name(item.id), provenance_name(item.id), record_name(item.id)};
  std::array<bool, 3> present{};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const dir_entry e = probe_entry(dir.fd.get(), names[i], dir.owner);
    if (e.kind == entry_kind::other)
      return conflict(dir.path + "/" + names[i] + " is " + e.what +
                      ": resume reads only regular files of this user, never through a link");
    present[i] = e.kind == entry_kind::own_file;
  }
  const std::string csv = dir.path + "/" + names[0], provenance = dir.path + "/" + names[1];
  const bool outputs = present[0] || present[1];
  const auto record = read_record(dir, item.id);
  if (!record) return conflict(record_path(dir.path, item.id) + ": " + record.error().what);
  if (!*record && !outputs) return {};
  if (!*record)
    return conflict((present[0] ? csv : provenance) +
                    " exists without a record of a run of this tool, so it is not taken for the line's results");
  const stored_record& r = **record;
  if (const auto key = first_difference(r.fingerprint, fingerprint); !key.empty())
    return conflict(std::string(outputs ? "earlier outputs were" : "an earlier record of this ID was") +
                    " made for a different request (" + key + " differs)");
  if (r.outcome.state != sandbox::name(verdict::success)) {
    if (outputs)
      return conflict((present[0] ? csv : provenance) + " exists beside a recorded " + r.outcome.state +
                      ", which has no outputs: it is not taken for the line's results");
    return retried(r.outcome.state, policy) ? resume_decision{} : keep(r.outcome);
  }
  if (!outputs) return {};  // a success whose outputs were moved away runs again
  if (present[0] != present[1])
    return conflict((present[0] ? csv : provenance) + " exists without " + (present[0] ? provenance : csv));
  return keep_success(dir, item, r, fingerprint);
}

}  // namespace plb::batch
