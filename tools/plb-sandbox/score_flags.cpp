#include "score_flags.hpp"

#include <set>

#include "failure.hpp"
#include "output_files.hpp"

namespace plb::tool {
namespace {

using sandbox::limit_field;

std::string bounds_text(limit_field f) {
  const auto& i = sandbox::info(f);
  return "default " + std::to_string(sandbox::get(sandbox::SandboxLimits{}, f)) + ", " + std::to_string(i.min) + " to " +
         std::to_string(i.max);
}

std::uint64_t limit_flag(const char* flag, limit_field f, const std::string& text) {
  if (text.empty()) return sandbox::get(sandbox::SandboxLimits{}, f);
  const auto r = sandbox::parse_limit(f, text);
  if (!r) {
    const auto& i = sandbox::info(f);
    fail(sandbox::verdict::usage_error, std::string(flag) + " " + text + ": " + std::string(sandbox::message(r.error)) +
                                            " (a whole number from " + std::to_string(i.min) + " to " +
                                            std::to_string(i.max) + ")");
  }
  return r.value;
}

}  // namespace

void add_score_flags(CLI::App& c, score_flags& f) {
  c.add_option("--model", f.model, "the submitted Python script (read once, never executed on the host)")->required();
  c.add_option("--model-sha256", f.model_sha256, "the SHA-256 of the script as reviewed (sha256sum)")->required();
  c.add_option("--runtime-image", f.runtime_image,
               "the reviewed runtime image's local ID, sha256:<64 hex> (never a tag; never pulled)")
      ->required();
  c.add_option("--data", f.data, "the input CSV; only the --feature columns reach the script")->required();
  c.add_option("--feature", f.features, "a feature column, repeatable; the script sees them in this order")
      ->required()
      ->take_all();
  c.add_option("--task-type", f.task_type, "regression | binary-classification (probabilities in [0, 1])")->required();
  c.add_option("--seconds", f.seconds, "wall-time limit in seconds (" + bounds_text(limit_field::wall_seconds) + ")");
  c.add_option("--memory-mb", f.memory_mb,
               "memory limit in MiB, swap disabled (" + bounds_text(limit_field::memory_mib) + ")");
  c.add_option("--output", f.output, "the predictions CSV to create; provenance goes to <output>.sandbox.json")
      ->required();
  c.add_option("--id-column", f.id_column, "a CSV column copied verbatim into the output instead of row numbers");
}

score_request check_score_flags(const score_flags& f) {
  using sandbox::verdict;
  score_request r;
  r.model = f.model;
  const auto digest = sandbox::parse_sha256_hex(f.model_sha256);
  if (!digest)
    fail(verdict::usage_error, "--model-sha256: " + std::string(sandbox::message(digest.error)) + " at character " +
                                   std::to_string(digest.offset + 1) + " (expected 64 hex digits, as sha256sum prints)");
  r.model_sha256 = digest.digest;
  const auto image = sandbox::parse_image_id(f.runtime_image);
  if (!image)
    fail(verdict::usage_error, "--runtime-image " + f.runtime_image + ": " + std::string(sandbox::message(image.error)));
  r.image = image.id;
  r.data = f.data;
  std::set<std::string> seen;
  for (const auto& feature : f.features) {
    if (feature.empty()) fail(verdict::usage_error, "--feature: empty column name");
    if (!seen.insert(feature).second) fail(verdict::usage_error, "--feature " + feature + ": given more than once");
  }
  r.features = f.features;
  if (!f.id_column.empty() && seen.count(f.id_column))
    fail(verdict::usage_error, "--id-column " + f.id_column + ": also given as a --feature");
  r.id_column = f.id_column;
  const auto task = sandbox::parse_task_type(f.task_type);
  if (!task) fail(verdict::usage_error, "--task-type " + f.task_type + ": expected regression or binary-classification");
  r.task = *task;
  r.limits.wall_seconds = limit_flag("--seconds", limit_field::wall_seconds, f.seconds);
  r.limits.memory_mib = limit_flag("--memory-mb", limit_field::memory_mib, f.memory_mb);
  r.output = f.output;
  r.provenance = provenance_path_for(f.output);
  check_fresh_output(r.output, "--output");
  check_fresh_output(r.provenance, "--output (its provenance)");
  return r;
}

}  // namespace plb::tool
