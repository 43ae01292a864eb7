// SPDX-License-Identifier: Apache-2.0
#include "runner/score/request_check.hpp"

#include <set>

#include "runner/score/bundle_snapshot.hpp"
#include "runner/score/output_files.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

using sandbox::verdict;

std::string limit_field_name(sandbox::limit_field f) { return "limits." + std::string(sandbox::info(f).name); }

}  // namespace

field_names api_field_names() noexcept {
  return {"model_path",
          "model_sha256",
          "runtime_image",
          "data_path",
          "features",
          "id_column",
          "task",
          "output_path",
          "output_path (its provenance)",
          &limit_field_name,
          "bundle_path",
          "bundle_sha256"};
}

void check_limits(const sandbox::SandboxLimits& limits, const field_names& names) {
  // The same validate() the core's builder applies: a caller's limits are bounded the same way.
  if (const auto v = sandbox::validate(limits)) {
    const auto& i = sandbox::info(v->field);
    // Within the table's bounds but under the least the guest limit sets (limits.hpp, busy_processes_fit).
    const std::string why = v->min() > i.min
                                ? ", so that " + names.limit(sandbox::limit_field::guest_processes) + " = " +
                                      std::to_string(limits.guest_processes) + " can all run busy in gVisor"
                                : "";
    fail(verdict::usage_error, names.limit(v->field) + " = " + std::to_string(v->value) + " " + std::string(i.unit) +
                                   ": outside its bounds (" + std::to_string(v->min()) + " to " +
                                   std::to_string(v->max()) + why + ")");
  }
  // Across fields: the CPUs the run is pinned to size the guest's thread pools (limits.hpp).
  if (!sandbox::guest_threads_fit(limits)) {
    using sandbox::limit_field;
    fail(verdict::usage_error,
         names.limit(limit_field::cpu_millicores) + " = " + std::to_string(limits.cpu_millicores) +
             " pins the run to " + std::to_string(sandbox::guest_cpus(limits)) + " CPUs, whose thread pools need " +
             std::to_string(sandbox::guest_threads_needed(limits)) + " guest processes: more than " +
             names.limit(limit_field::guest_processes) + " = " + std::to_string(limits.guest_processes) +
             " (raise it to " + std::to_string(sandbox::guest_threads_needed(limits)) + ", or lower the CPU limit)");
  }
}

void check_task(sandbox::task_type task, const field_names& names) {
  if (sandbox::is_known(task)) return;
  std::string known;
  for (const sandbox::task_type t : sandbox::task_types)
    known += (known.empty() ? "" : " or ") + std::string(sandbox::name(t));
  fail(verdict::usage_error, std::string(names.task) + " = " + std::to_string(static_cast<unsigned>(task)) +
                                 ": not a task type (expected " + known + ")");
}

std::optional<sandbox::sha256_digest> check_bundle(const std::string& bundle, const std::string& bundle_sha256,
                                                   const field_names& names) {
  if (bundle.empty() && bundle_sha256.empty()) return std::nullopt;  // no bundle: the one-mount run
  if (bundle_sha256.empty())
    fail(verdict::usage_error, bundle_named(names.bundle, bundle) + ": given without " + names.bundle_sha256 +
                                   " (a bundle runs only against its reviewed digest)");
  if (bundle.empty())
    fail(verdict::usage_error,
         std::string(names.bundle_sha256) + ": given without " + names.bundle + " (the bundle's directory)");
  const auto digest = sandbox::parse_sha256_hex(bundle_sha256);
  if (!digest)
    fail(verdict::usage_error, std::string(names.bundle_sha256) + ": " + std::string(sandbox::message(digest.error)) +
                                   " at character " + std::to_string(digest.offset + 1) +
                                   " (expected 64 hex digits, as plb-sandbox bundle-digest prints)");
  return digest.digest;
}

score_request check_request(const sandbox::scoring_request& in, const field_names& names, bool fresh_outputs) {
  if (in.model_path.empty()) fail(verdict::usage_error, std::string(names.model) + " is empty");
  const auto digest = sandbox::parse_sha256_hex(in.model_sha256);
  if (!digest)
    fail(verdict::usage_error, std::string(names.model_sha256) + ": " + std::string(sandbox::message(digest.error)) +
                                   " at character " + std::to_string(digest.offset + 1) +
                                   " (expected 64 hex digits, as sha256sum prints)");
  const auto bundle_digest = check_bundle(in.bundle_path, in.bundle_sha256, names);
  const auto image = sandbox::parse_image_id(in.runtime_image);
  if (!image)
    fail(verdict::usage_error,
         std::string(names.runtime_image) + " " + in.runtime_image + ": " + std::string(sandbox::message(image.error)));
  if (in.features.empty())
    fail(verdict::usage_error, std::string(names.feature) + ": at least one feature column is needed");
  std::set<std::string> seen;
  for (const auto& feature : in.features) {
    if (feature.empty()) fail(verdict::usage_error, std::string(names.feature) + ": empty column name");
    if (!seen.insert(feature).second)
      fail(verdict::usage_error, std::string(names.feature) + " " + feature + ": given more than once");
  }
  if (!in.id_column.empty() && seen.count(in.id_column))
    fail(verdict::usage_error, std::string(names.id_column) + " " + in.id_column + ": also given as a feature");
  check_task(in.task, names);
  check_limits(in.limits, names);
  const std::string provenance = provenance_path_for(in.output_path);
  if (fresh_outputs) {
    check_fresh_output(in.output_path, names.output);
    check_fresh_output(provenance, names.provenance);
  }
  // A file request: the in-memory fields are unset (no script bytes, no table, published).
  score_request checked{in.model_path,
                        digest.digest,
                        *image.id,
                        in.data_path,
                        in.features,
                        in.id_column,
                        in.task,
                        in.limits,
                        in.output_path,
                        provenance,
                        std::nullopt,
                        nullptr,
                        true,
                        names,
                        0,
                        {},
                        bundle_digest ? in.bundle_path : std::string(),
                        bundle_digest};
  if (in.keep_stderr) {
    checked.stderr_tail_bytes = check_stderr_tail(in.stderr_tail_kib);
    const bool derived = in.stderr_path.empty();
    checked.stderr_path = derived ? diagnostics_path_for(in.output_path) : in.stderr_path;
    const std::string name = derived ? std::string(names.output) + " (its diagnostics file)" : "stderr_path";
    if (fresh_outputs) check_fresh_output(checked.stderr_path, name.c_str());
  }
  return checked;
}

std::size_t check_stderr_tail(std::uint64_t tail_kib) {
  using bounds = sandbox::stderr_tail_bounds;
  if (!sandbox::stderr_tail_in_bounds(tail_kib))
    fail(verdict::usage_error, "stderr_tail_kib = " + std::to_string(tail_kib) + " " + std::string(bounds::unit) +
                                   ": outside its bounds (" + std::to_string(bounds::min_kib) + " to " +
                                   std::to_string(bounds::max_kib) + ")");
  return static_cast<std::size_t>(tail_kib * sandbox::kib);
}

}  // namespace plb::runner
