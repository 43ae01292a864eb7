// SPDX-License-Identifier: Apache-2.0
#include "score_flags.hpp"

#include "runner/for_cli.hpp"
#include "support/failure.hpp"

namespace plb::cli {
namespace {

using sandbox::limit_field;

std::string bounds_text(limit_field f) {
  const auto& i = sandbox::info(f);
  return "default " + std::to_string(sandbox::get(sandbox::SandboxLimits{}, f)) + ", " + std::to_string(i.min) +
         " to " + std::to_string(i.max);
}

}  // namespace

// An empty value is an error, not the default: only a flag that was not given means the default.
std::uint64_t parse_limit_flag(const char* flag, limit_field f, const std::string& text, const CLI::Option* option) {
  if (option == nullptr || option->count() == 0) return sandbox::get(sandbox::SandboxLimits{}, f);
  const auto r = sandbox::parse_limit(f, text);
  if (!r) {
    const auto& i = sandbox::info(f);
    fail(sandbox::verdict::usage_error, std::string(flag) + (text.empty() ? std::string(" \"\"") : " " + text) + ": " +
                                            std::string(sandbox::message(r.error)) + " (a whole number from " +
                                            std::to_string(i.min) + " to " + std::to_string(i.max) + ")");
  }
  return r.value;
}

namespace {

std::string flag_of(limit_field f) {
  if (f == limit_field::wall_seconds) return "--seconds";
  if (f == limit_field::memory_mib) return "--memory-mb";
  return "limits." + std::string(sandbox::info(f).name);  // not a flag: the defaults are in bounds
}

}  // namespace

CLI::Option* add_repeatable(CLI::App& c, const std::string& name, std::vector<std::string>& values,
                            const std::string& description) {
  return c.add_option(name, values, description)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void add_score_flags(CLI::App& c, score_flags& f) {
  c.add_option("--model", f.model, "the submitted Python script (read once, never executed on the host)")->required();
  c.add_option("--model-sha256", f.model_sha256, "the SHA-256 of the script as reviewed (sha256sum)")->required();
  c.add_option("--runtime-image", f.runtime_image,
               "the reviewed runtime image's local ID, sha256:<64 hex> (never a tag; never pulled)")
      ->required();
  c.add_option("--data", f.data, "the input CSV; only the --feature columns reach the script")->required();
  add_repeatable(c, "--feature", f.features, "a feature column, repeatable; the script sees them in this order")
      ->required();
  c.add_option("--task-type", f.task_type, "regression | binary-classification (probabilities in [0, 1])")->required();
  f.seconds_option = c.add_option("--seconds", f.seconds,
                                  "wall-time limit in seconds (" + bounds_text(limit_field::wall_seconds) + ")");
  f.memory_option = c.add_option("--memory-mb", f.memory_mb,
                                 "memory limit in MiB, swap disabled (" + bounds_text(limit_field::memory_mib) + ")");
  c.add_option("--output", f.output,
               "the predictions CSV to create; provenance goes to <output>.sandbox.json; a missing directory "
               "is created 0700 (one level, in a directory of your own)")
      ->required();
  c.add_option("--id-column", f.id_column, "a CSV column copied verbatim into the output instead of row numbers");
  c.add_option("--bundle", f.bundle,
               "a model bundle: a directory of weights and files the script reads, read-only, at /sandbox/bundle "
               "(copied once into the run, never parsed on the host); needs --bundle-sha256");
  c.add_option("--bundle-sha256", f.bundle_sha256,
               "the bundle's reviewed digest (plb-sandbox bundle-digest DIR); needs --bundle");
  c.add_flag("--keep-stderr", f.keep_stderr, keep_stderr_help("<output>.stderr"));
}

std::string keep_stderr_help(const std::string& file) {
  return "also write the last " + std::to_string(sandbox::stderr_tail_bounds::default_kib) +
         " KiB of the script's stderr, escaped, to " + file +
         " (0600, for every verdict the script reached): for the operator only; it can hold feature values and "
         "timing, so review it before passing anything of it on. Off by default: stderr is discarded";
}

sandbox::scoring_request request_from_flags(const score_flags& f) {
  const auto task = sandbox::parse_task_type(f.task_type);
  if (!task)
    fail(sandbox::verdict::usage_error,
         "--task-type " + f.task_type + ": expected regression or binary-classification");
  sandbox::SandboxLimits limits;
  limits.wall_seconds = parse_limit_flag("--seconds", limit_field::wall_seconds, f.seconds, f.seconds_option);
  limits.memory_mib = parse_limit_flag("--memory-mb", limit_field::memory_mib, f.memory_mb, f.memory_option);
  return {.model_path = f.model,
          .model_sha256 = f.model_sha256,
          .runtime_image = f.runtime_image,
          .data_path = f.data,
          .features = f.features,
          .id_column = f.id_column,
          .task = *task,
          .output_path = f.output,
          .limits = limits,
          .bundle_path = f.bundle,
          .bundle_sha256 = f.bundle_sha256,
          .keep_stderr = f.keep_stderr,
          .stderr_path = {},  // <output>.stderr
          .stderr_tail_kib = sandbox::stderr_tail_bounds::default_kib};
}

const field_names& cli_field_names() noexcept {
  static constexpr field_names flags{
      "--model",     "--model-sha256", "--runtime-image",           "--data", "--feature", "--id-column",
      "--task-type", "--output",       "--output (its provenance)", &flag_of, "--bundle", "--bundle-sha256"};
  return flags;
}

score_request check_score_flags(const score_flags& f) {
  return check_request(request_from_flags(f), cli_field_names());
}

}  // namespace plb::cli
