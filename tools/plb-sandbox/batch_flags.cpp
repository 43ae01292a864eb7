// SPDX-License-Identifier: Apache-2.0
#include "batch_flags.hpp"

#include <filesystem>

#include "score_flags.hpp"
#include "support/failure.hpp"

namespace plb::cli {
namespace {

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out.append(separator);
    out.append(part);
  }
  return out;
}

using sandbox::verdict;

std::string absolute(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

// Each backend's meaning of an option, "local: ...; slurm: ...", for its flag's help.
std::string backends_help(std::string_view batch::backend_help::*option) {
  std::vector<std::string> parts;
  for (const batch::backend* b : batch::backends())
    if (const std::string_view text = b->help().*option; !text.empty())
      parts.push_back(std::string(b->name()) + ": " + std::string(text));
  return join(parts, "; ");
}

// The names of the backends that queue, for the refusals of the flags only they read: "slurm".
std::string queued_backends() {
  std::vector<std::string> names;
  for (const batch::backend* b : batch::backends())
    if (b->queued()) names.emplace_back(b->name());
  return join(names, ", ");
}

std::optional<std::uint64_t> optional_limit(const char* flag, sandbox::limit_field f, const std::string& text,
                                            const CLI::Option* option) {
  if (option == nullptr || option->count() == 0) return std::nullopt;
  return parse_limit_flag(flag, f, text, option);
}

}  // namespace

void add_batch_flags(CLI::App& c, batch_flags& f) {
  c.add_option("--manifest", f.manifest, "JSON Lines, one run per line: id, model, model_sha256, and any setting below")
      ->required();
  c.add_option("--output-dir", f.output_dir,
               "receives <id>.csv, <id>.csv.sandbox.json, <id>.result.json and batch-summary.{csv,json} (created 0700)")
      ->required();
  c.add_option("--runtime-image", f.runtime_image, "default for lines without runtime_image");
  c.add_option("--data", f.data, "default for lines without data");
  add_repeatable(c, "--feature", f.features, "default for lines without features; repeatable");
  c.add_option("--task-type", f.task_type, "default for lines without task_type");
  c.add_option("--id-column", f.id_column, "default for lines without id_column");
  f.seconds_option = c.add_option("--seconds", f.seconds, "default wall-time limit for lines without seconds");
  f.memory_option = c.add_option("--memory-mb", f.memory_mb, "default memory limit for lines without memory_mb");
  f.jobs_option = c.add_option("--jobs", f.jobs, "runs at once (" + backends_help(&batch::backend_help::jobs) + ")")
                      ->check(CLI::Range(1u, 1024u));
  std::vector<std::string> names;
  for (const batch::backend* b : batch::backends()) names.emplace_back(b->name());
  // --engine was its name before "engine" came to mean only the Docker Engine: job scripts and
  // operators' scripts written then still pass it.
  c.add_option("--backend,--engine", f.backend,
               "where the lines run: " + join(names, ", ") + " (the first is the default; --engine is its old name)")
      ->check(CLI::IsMember(names));
  f.retry_option =
      c.add_option("--retry-failed", f.retry,
                   "re-run lines whose last verdict the script did not cause (host_refused, runtime_failed, "
                   "cleanup_failed, internal_error); =all re-runs every failure")
          ->expected(0, 1)
          ->check(CLI::IsMember({"", "all"}));
  c.add_flag("--keep-stderr", f.keep_stderr, keep_stderr_help("<id>.stderr in --output-dir"));
  c.add_flag("--verbose", f.verbose, "without a terminal, one line per finished run on stderr");
  c.add_option("--partition", f.partition, backends_help(&batch::backend_help::partition));
  c.add_option("--account", f.account, backends_help(&batch::backend_help::account));
  add_repeatable(c, "--sbatch-option", f.sbatch_options, backends_help(&batch::backend_help::scheduler_option));
  c.add_flag("--no-wait", f.no_wait, backends_help(&batch::backend_help::no_wait));
  c.add_flag("--collect", f.collect, backends_help(&batch::backend_help::collect));
  c.add_option("--workers", f.workers, backends_help(&batch::backend_help::workers))->check(CLI::Range(1u, 100000u));
  c.add_flag("--worker", f.worker,
             "pull lines from --output-dir's queue until none is left, named as --backend names its workers; "
             "what each worker task of a queued --backend runs");
  c.add_option(
      "--manifest-sha256", f.manifest_sha256,
      "with --worker: refuse to run unless the manifest is still the one submitted (the job script passes it)");
  add_batch_finish_flags(c, f.finish);
}

batch_config batch_config_from(const batch_flags& f) {
  batch_config c;
  c.manifest_path = absolute(f.manifest);
  c.output_dir = absolute(f.output_dir);
  if (f.output_dir.empty()) fail(verdict::usage_error, "--output-dir is empty");
  c.defaults.runtime_image = f.runtime_image;
  c.defaults.data = absolute(f.data);
  c.defaults.task_type = f.task_type;
  if (!f.task_type.empty() && !sandbox::parse_task_type(f.task_type))
    fail(verdict::usage_error, "--task-type " + f.task_type + ": expected regression or binary-classification");
  c.defaults.id_column = f.id_column;
  c.defaults.features = f.features;
  c.defaults.wall_seconds =
      optional_limit("--seconds", sandbox::limit_field::wall_seconds, f.seconds, f.seconds_option);
  c.defaults.memory_mib = optional_limit("--memory-mb", sandbox::limit_field::memory_mib, f.memory_mb, f.memory_option);
  if (f.retry_option && f.retry_option->count() > 0)
    c.retry = f.retry == "all" ? retry_policy::all_failures : retry_policy::host_failures;
  c.keep_stderr = f.keep_stderr;
  const batch::backend* backend = batch::find_backend(f.backend);
  if (!backend) fail(verdict::usage_error, "--backend " + f.backend + ": no such backend");
  const bool queued = backend->queued();
  const bool submits =
      f.no_wait || f.collect || !f.partition.empty() || !f.account.empty() || !f.sbatch_options.empty();
  std::string queued_backend = "a queued --backend (";  // appended, not "..." + a temporary: GCC PR 105651
  queued_backend.append(queued_backends()).append(")");
  if (!queued && submits)
    fail(verdict::usage_error, "--no-wait, --collect, --partition, --account and --sbatch-option need " +
                                   queued_backend + "; " + f.backend + " runs the lines itself");
  if (f.worker && (submits || f.workers))
    fail(verdict::usage_error, "--worker is what a queued backend's worker task runs, not a way to submit");
  if (f.workers && !queued) fail(verdict::usage_error, "--workers needs " + queued_backend);
  if (!f.manifest_sha256.empty() && !f.worker) fail(verdict::usage_error, "--manifest-sha256 goes with --worker");
  return c;
}

std::vector<std::string> task_flags_from(const batch_config& c) {
  std::vector<std::string> out;
  const auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) out.insert(out.end(), {flag, value});
  };
  add("--runtime-image", c.defaults.runtime_image);
  add("--data", c.defaults.data);
  for (const auto& f : c.defaults.features) add("--feature", f);
  add("--task-type", c.defaults.task_type);
  add("--id-column", c.defaults.id_column);
  if (c.defaults.wall_seconds) add("--seconds", std::to_string(*c.defaults.wall_seconds));
  if (c.defaults.memory_mib) add("--memory-mb", std::to_string(*c.defaults.memory_mib));
  if (c.retry == retry_policy::host_failures) out.emplace_back("--retry-failed");
  if (c.retry == retry_policy::all_failures) out.emplace_back("--retry-failed=all");
  if (c.keep_stderr) out.emplace_back("--keep-stderr");
  return out;
}

}  // namespace plb::cli
