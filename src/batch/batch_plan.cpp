// SPDX-License-Identifier: Apache-2.0
// The batch's plan: the manifest read within its bounds, parsed by the core's strict parser, and
// every line resolved against the command line's defaults and checked like a sandbox-score request.
#include <filesystem>

#include "batch/batch.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "plb/sandbox/digest.hpp"
#include "runner/for_batch.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

std::string manifest_limit_name(sandbox::limit_field f) {
  if (f == sandbox::limit_field::wall_seconds) return "seconds";
  if (f == sandbox::limit_field::memory_mib) return "memory_mb";
  return "limits." + std::string(sandbox::info(f).name);
}

constexpr field_names manifest_names{"model",     "model_sha256", "runtime_image",           "features",
                                     "id_column", "output",       "output (its provenance)", &manifest_limit_name};

std::string absolute_from(const std::filesystem::path& base, const std::string& path) {
  if (path.empty()) return path;
  return (base / path).lexically_normal().string();
}

std::string read_manifest(const std::string& path, const sandbox::manifest_options& options) {
  const opened_file file = open_regular_file(path);
  if (!file) fail(verdict::input_refused, "--manifest " + path + ": " + describe(file));
  read_result r = read_up_to(file.fd.get(), options.max_bytes);
  if (r.error == read_error::too_large)
    fail(verdict::input_refused,
         "--manifest " + path + ": larger than " + std::to_string(options.max_bytes) + " bytes");
  if (!r) fail(verdict::input_refused, "--manifest " + path + ": cannot be read");
  return std::move(r.data);
}

sandbox::scoring_request resolve(const sandbox::manifest_entry& e, const batch_config& config,
                                 const std::filesystem::path& manifest_dir) {
  const batch_defaults& d = config.defaults;
  const auto cwd = std::filesystem::current_path();
  sandbox::scoring_request r;
  r.model_path = absolute_from(manifest_dir, e.model);
  r.model_sha256 = e.model_sha256;
  r.runtime_image = e.runtime_image.value_or(d.runtime_image);
  r.data_path = e.data ? absolute_from(manifest_dir, *e.data) : absolute_from(cwd, d.data);
  r.features = e.features.value_or(d.features);
  r.id_column = e.id_column.value_or(d.id_column);
  r.output_path = config.output_dir + "/" + e.id + ".csv";
  r.limits.wall_seconds = e.wall_seconds.value_or(d.wall_seconds.value_or(r.limits.wall_seconds));
  r.limits.memory_mib = e.memory_mib.value_or(d.memory_mib.value_or(r.limits.memory_mib));
  if (e.task) {
    r.task = *e.task;
  } else if (const auto t = sandbox::parse_task_type(d.task_type)) {
    r.task = *t;
  } else {
    fail(verdict::input_refused, "task_type: not in the line and no --task-type given");
  }
  if (r.runtime_image.empty())
    fail(verdict::input_refused, "runtime_image: not in the line and no --runtime-image given");
  if (r.data_path.empty()) fail(verdict::input_refused, "data: not in the line and no --data given");
  return r;
}

}  // namespace

batch_plan plan_batch(const batch_config& config) {
  const sandbox::manifest_options options;
  const std::string text = read_manifest(config.manifest_path, options);
  std::vector<sandbox::manifest_entry> entries;
  const auto parsed = sandbox::parse_manifest(text, options, entries);
  if (!parsed) {
    std::string where = "--manifest " + config.manifest_path;
    if (parsed.line) where += ": line " + std::to_string(parsed.line);
    if (parsed.column) where += ", column " + std::to_string(parsed.column);
    if (parsed.field != sandbox::manifest_field::none) where += " (" + std::string(sandbox::name(parsed.field)) + ")";
    fail(verdict::input_refused, where + ": " + std::string(sandbox::message(parsed.error)));
  }
  batch_plan plan;
  plan.manifest_sha256 = sandbox::sha256_of(text).digest.hex();
  const auto manifest_dir = std::filesystem::path(config.manifest_path).parent_path();
  plan.items.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    batch_item item{i, e.line, e.id, {}};
    try {
      item.request = resolve(e, config, manifest_dir);
      (void)check_request(item.request, manifest_names, false);
    } catch (const failure& f) {
      fail(verdict::input_refused, "--manifest " + config.manifest_path + ": line " + std::to_string(e.line) + " (id " +
                                       e.id + "): " + f.what());
    }
    plan.items.push_back(std::move(item));
  }
  return plan;
}

bool is_verdict(const std::string& state) {
  for (const auto& row : sandbox::verdict_table)
    if (row.name == state) return true;
  return false;
}

}  // namespace plb::batch
