// SPDX-License-Identifier: Apache-2.0
#include "runner/score/verify.hpp"

#include <sys/stat.h>

#include "plb/sandbox/provenance_reader.hpp"
#include "runner/engine/docker_engine.hpp"
#include "runner/host/preflight.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "runner/score/output_files.hpp"
#include "runner/score/provenance_seal.hpp"
#include "runner/score/verify_files.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/no_symlinks.hpp"
#include "support/one_line.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

using checked = verify_checks;

// The provenance: read with a bound, its seal checked under `key`, and only then read strictly. A
// problem here ends verify before anything else is looked at.
bool read_provenance(const verify_options& o, checked& c, const host_key& key) {
  // Through no symbolic link, as every file verify opens: a link planted here is not followed.
  const auto f = open_bounded_file(o.provenance_path, sandbox::max_provenance_bytes);
  const auto refuse = [&](const std::string& why) {
    c.add(verify_mismatch::provenance_refused, o.provenance_path + ": " + why);
    return false;
  };
  if (!f) return refuse(is_too_large(f.error()) ? "larger than 1 MiB" : f.error().what);
  const auto text = read_up_to(f->fd.get(), sandbox::max_provenance_bytes);
  if (!text) return refuse(is_too_large(text.error()) ? "larger than 1 MiB" : "cannot be read");
  // Nothing of it is parsed before its MAC verifies: every path, limit and image below is the tool's.
  if (const auto sealed = check_provenance_seal(*text, key); !sealed) return refuse(sealed.error().what);
  const auto p = sandbox::parse_provenance(*text);
  if (!p) {
    std::string why(sandbox::message(p.error));
    if (!p.field.empty()) why = p.field + ": " + why;
    if (p.error == sandbox::provenance_error::not_json || p.error == sandbox::provenance_error::duplicate_key)
      why += " (byte " + std::to_string(p.offset) + ")";
    return refuse(why);
  }
  c.record = p.record;
  if (c.record.outcome != verdict::success || !c.record.runtime_image) return refuse("not a scored run's provenance");
  if (c.record.predictions_path.empty())
    return refuse(
        "names no predictions file (sealed by an older plb-sandbox, before a provenance was bound to its "
        "predictions): it cannot vouch for the file beside it; re-score the run");
  c.model_path = o.model_path.empty() ? c.record.model_path : o.model_path;
  c.data_path = o.data_path.empty() ? c.record.data_path : o.data_path;
  if (c.model_path.empty() || c.data_path.empty())
    return refuse(std::string("records no model or data path (an older plb-sandbox): give ") + o.names.model + " and " +
                  o.names.data);
  // The bundle the run mounted: at its recorded path, or where the caller says it moved to.
  if (c.record.bundle_sha256) {
    c.bundle_path = o.bundle_path.empty() ? c.record.bundle_path : o.bundle_path;
  } else if (!o.bundle_path.empty()) {
    fail(verdict::usage_error,
         bundle_named(o.names.bundle, o.bundle_path) + ": the provenance records no bundle (the run had none)");
  }
  const std::string suffix = ".sandbox.json";
  const std::string& pp = o.provenance_path;
  if (pp.size() <= suffix.size() || pp.compare(pp.size() - suffix.size(), suffix.size(), suffix) != 0)
    return refuse("not named <predictions>.sandbox.json");
  c.original = pp.substr(0, pp.size() - suffix.size());
  return true;
}

// The image (present locally with the recorded ID) and the runtime (release and platform).
void check_host(checked& c, const cancellation& cancel) {
  const docker_engine engine;
  const auto image = engine.inspect_image(*c.record.runtime_image);
  if (!image) fail(verdict::host_refused, "the Docker daemon: " + image.error().message());
  if (!*image) {
    c.add(verify_mismatch::image_changed,
          "image " + c.record.runtime_image->str() + " is not on this host (an image ID names its content)");
    return;
  }
  const host_facts host = preflight(engine, *c.record.runtime_image, c.record.limits, cancel);
  if (host.runtime_release != c.record.runtime_release || host.runtime_platform != c.record.runtime_platform)
    c.add(verify_mismatch::runtime_changed, "this host runs runsc " + host.runtime_release + " on " +
                                                host.runtime_platform + ", the provenance records runsc " +
                                                c.record.runtime_release + " on " + c.record.runtime_platform);
}

verify_outcome refused_outcome(std::vector<verify_problem> problems) {
  verify_outcome out;
  const auto& first = info(problems.front().mismatch);
  out.result = std::string(first.name);
  out.exit_code = first.exit_code;
  out.message = problems.front().message;
  out.problems = std::move(problems);
  return out;
}

sandbox::scoring_request request_of(const checked& c, const std::string& output) {
  sandbox::scoring_request r;
  r.model_path = c.model_path;
  r.model_sha256 = c.record.model_sha256.hex();
  r.runtime_image = c.record.runtime_image->str();
  r.data_path = c.data_path;
  r.features = c.record.features;
  r.id_column = c.record.id_column;
  r.task = c.record.task;
  r.output_path = output;
  r.limits = c.record.limits;
  if (c.record.bundle_sha256) {  // mounted as the run mounted it, held to the recorded digest again
    r.bundle_path = c.bundle_path;
    r.bundle_sha256 = c.record.bundle_sha256->hex();
  }
  return r;
}

// The re-run's predictions against the original's, row by row: the original is read again, and
// must still be the recorded predictions (checked before the re-run, it may have changed since).
void compare(verify_outcome& out, const checked& c) {
  const auto rerun = read_bounded_file(out.predictions_path, predictions_bound(c.record));
  if (!rerun)
    fail(verdict::internal_error,
         out.predictions_path + ": cannot read the re-run's predictions (" + rerun.error().what + ")");
  const auto original = read_recorded_predictions(c);
  if (!original) {
    const auto& row = info(verify_mismatch::predictions_changed);
    out.result = std::string(row.name);
    out.exit_code = row.exit_code;
    out.message = "predictions " + c.original + ": " + original.error().what;
    out.problems.push_back({row.mismatch, out.message});
    return;
  }
  const bool same_digest = sandbox::sha256_of(*rerun).digest.hex() == c.record.predictions_sha256.hex();
  out.comparison = compare_predictions(*original, *rerun);
  out.result = same_digest ? "reproduced" : "differs";
  out.exit_code = same_digest ? 0 : verify_differs_exit_code;
  if (same_digest) {
    out.message = out.predictions_path + " is byte for byte the recorded predictions (SHA-256 " +
                  c.record.predictions_sha256.hex() + ")";
  } else {
    out.message = std::to_string(out.comparison->differing_rows) + " of " + std::to_string(out.comparison->rows) +
                  " rows differ from " + c.original;
  }
}

}  // namespace

verify_checks check_provenance_and_inputs(const verify_options& o, const host_key& key) {
  checked c;
  if (!read_provenance(o, c, key)) return c;
  c.provenance_trusted = true;
  check_predictions(c);  // first: what a leaderboard reads
  check_inputs(c);
  return c;
}

verify_outcome verify_run(const verify_options& o, const sandbox::scoring_options& scoring) {
  const cancellation cancel(scoring.stop);
  checked c = check_provenance_and_inputs(o, this_host_key(key_absent::refuse));
  if (!c.provenance_trusted) return refused_outcome(std::move(c.problems));
  check_host(c, cancel);
  std::vector<verify_problem> blocking;
  for (const auto& p : c.problems)
    if (p.mismatch != verify_mismatch::runtime_changed || !o.allow_changed_runtime) blocking.push_back(p);
  if (!blocking.empty()) {
    verify_outcome out = refused_outcome(std::move(blocking));
    out.problems = c.problems;
    return out;
  }
  const std::string output = o.output.empty() ? fresh_verify_path(c.original) : o.output;
  const sandbox::scoring_result r = sandbox::score(request_of(c, output), scoring);
  if (r.stopped_by) throw interrupted{r.stopped_by};
  verify_outcome out;
  out.problems = c.problems;  // an allowed runtime change is still reported
  if (!r) {
    out.result = std::string(sandbox::name(r.outcome));
    out.exit_code = r.exit_code;
    out.message = "the re-run did not succeed: " + r.message;
    return out;
  }
  out.predictions_path = r.predictions_path;
  compare(out, c);
  return out;
}

std::string fresh_verify_path(const std::string& original) {
  const std::string base =
      original.size() > 4 && original.ends_with(".csv") ? original.substr(0, original.size() - 4) : original;
  for (int n = 1;; ++n) {
    std::string candidate = base + ".verify-" + std::to_string(n) + ".csv";
    struct stat st {};
    if (::lstat(candidate.c_str(), &st) != 0 && ::lstat(provenance_path_for(candidate).c_str(), &st) != 0)
      return candidate;
  }
}

}  // namespace plb::runner
