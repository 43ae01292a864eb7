// SPDX-License-Identifier: Apache-2.0
// The batch's plan: the manifest read within its bounds, parsed by the core's strict parser, and
// every line resolved against the command line's defaults and checked like a sandbox-score request.
#include <algorithm>
#include <filesystem>

#include "batch/backend.hpp"
#include "batch/batch.hpp"
#include "plb/sandbox/digest.hpp"
#include "runner/for_batch.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

std::string manifest_limit_name(sandbox::limit_field f) {
  if (f == sandbox::limit_field::wall_seconds) return "seconds";
  if (f == sandbox::limit_field::memory_mib) return "memory_mb";
  return "limits." + std::string(sandbox::info(f).name);
}

}  // namespace

const field_names manifest_names{"model",
                                 "model_sha256",
                                 "runtime_image",
                                 "data",
                                 "features",
                                 "id_column",
                                 "task_type",
                                 "output",
                                 "output (its provenance)",
                                 &manifest_limit_name,
                                 "bundle",
                                 "bundle_sha256"};

namespace {

std::string absolute_from(const std::filesystem::path& base, const std::string& path) {
  if (path.empty()) return path;
  return (base / path).lexically_normal().string();
}

std::string read_manifest(const std::string& path, const sandbox::manifest_options& options) {
  const auto file = open_regular_file(path);
  if (!file) fail(verdict::input_refused, "--manifest " + path + ": " + file.error().what);
  auto r = read_up_to(file->fd.get(), options.max_bytes);
  if (!r && is_too_large(r.error()))
    fail(verdict::input_refused,
         "--manifest " + path + ": larger than " + std::to_string(options.max_bytes) + " bytes");
  if (!r) fail(verdict::input_refused, "--manifest " + path + ": cannot be read");
  return std::move(*r);
}

sandbox::scoring_request resolve(const sandbox::manifest_entry& e, const batch_config& config,
                                 const std::filesystem::path& manifest_dir, const std::filesystem::path& cwd) {
  const batch_defaults& d = config.defaults;
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
  if (e.bundle) {  // relative to the manifest, as the model is; the parser saw both or neither
    r.bundle_path = absolute_from(manifest_dir, *e.bundle);
    r.bundle_sha256 = e.bundle_sha256.value_or(std::string());
  }
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

// The manifest's lines one at a time, each parsed by the core's strict parser as a manifest of
// its own: no line's parsed entry outlives its row. The errors are the whole-manifest parser's
// (parse_manifest): the first failing line, then the line count, then the first duplicate ID.
template <typename F>
void for_each_entry(const std::string& path, std::string_view text, const sandbox::manifest_options& options,
                    F&& each) {
  const auto refuse = [&](const sandbox::manifest_result& parsed) {
    std::string where = "--manifest " + path;
    if (parsed.line) where += ": line " + std::to_string(parsed.line);
    if (parsed.column) where += ", column " + std::to_string(parsed.column);
    if (parsed.field != sandbox::manifest_field::none) where += " (" + std::string(sandbox::name(parsed.field)) + ")";
    fail(verdict::input_refused, where + ": " + std::string(sandbox::message(parsed.error)));
  };
  if (text.size() > options.max_bytes) refuse({sandbox::manifest_error::too_large, 0, 0, 0});
  std::vector<sandbox::manifest_entry> one;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (++line > options.max_lines) refuse({sandbox::manifest_error::too_many_lines, line, 0, start});
    const std::string_view s = text.substr(start, end - start);
    // A blank line alone would read as an empty manifest: it is an empty line of this one.
    if (s.find_first_not_of(" \t\r") == std::string_view::npos)
      refuse({sandbox::manifest_error::empty_line, line, 0, start});
    auto parsed = sandbox::parse_manifest(s, options, one);
    if (!parsed) {
      if (parsed.line) parsed.line += line - 1;
      parsed.offset += start;
      refuse(parsed);
    }
    one.front().line = line;
    one.front().offset = start;
    each(one.front());
    start = end + 1;
  }
  if (line == 0) refuse({sandbox::manifest_error::empty_manifest, 0, 0, 0});
}

// The first line (by number) whose ID an earlier line already used, or 0; lines are numbered from 1.
std::size_t first_duplicate_line(const std::string& ids, const std::vector<std::uint32_t>& ends) {
  const auto id = [&](std::size_t i) {
    const std::size_t from = i == 0 ? 0 : ends[i - 1];
    return std::string_view(ids).substr(from, ends[i] - from);
  };
  std::vector<std::uint32_t> by_id(ends.size());
  for (std::size_t i = 0; i < by_id.size(); ++i) by_id[i] = static_cast<std::uint32_t>(i);
  std::sort(by_id.begin(), by_id.end(),
            [&](std::uint32_t a, std::uint32_t b) { return id(a) != id(b) ? id(a) < id(b) : a < b; });
  std::size_t first = 0;
  for (std::size_t k = 1; k < by_id.size(); ++k)
    if (id(by_id[k]) == id(by_id[k - 1]) && (first == 0 || by_id[k] + 1u < first)) first = by_id[k] + 1u;
  return first;
}

}  // namespace

batch_plan plan_batch(const batch_config& config) {
  const sandbox::manifest_options options;
  batch_plan plan;
  const auto manifest_dir = std::filesystem::path(config.manifest_path).parent_path();
  const auto cwd = std::filesystem::current_path();
  const std::string text = read_manifest(config.manifest_path, options);
  plan.manifest_sha256 = sandbox::sha256_of(text).digest.hex();
  {
    // First the manifest as a whole, as the core's parser checks it: every line, then the IDs.
    std::string ids;
    std::vector<std::uint32_t> ends;
    std::size_t own_text = 0;  // about what the rows' buffer will hold: IDs, model file names, digests
    for_each_entry(config.manifest_path, text, options, [&](const sandbox::manifest_entry& e) {
      ids.append(e.id);
      ends.push_back(static_cast<std::uint32_t>(ids.size()));  // below max_bytes
      own_text +=
          e.id.size() + e.model.size() - std::min(e.model.size(), e.model.rfind('/') + 1) + e.model_sha256.size();
    });
    plan.reserve(ends.size(), own_text);
    if (const std::size_t line = first_duplicate_line(ids, ends))
      fail(verdict::input_refused, "--manifest " + config.manifest_path + ": line " + std::to_string(line) + " (" +
                                       std::string(sandbox::name(sandbox::manifest_field::id)) +
                                       "): " + std::string(sandbox::message(sandbox::manifest_error::duplicate_id)));
  }
  // Then each line resolved and checked like a sandbox-score request, kept as its compact row.
  for_each_entry(config.manifest_path, text, options, [&](const sandbox::manifest_entry& e) {
    sandbox::scoring_request request;
    try {
      request = resolve(e, config, manifest_dir, cwd);
      (void)check_request(request, manifest_names, false);
    } catch (const failure& f) {
      fail(verdict::input_refused, "--manifest " + config.manifest_path + ": line " + std::to_string(e.line) + " (id " +
                                       e.id + "): " + f.what());
    }
    plan.add(e.line, e.id, request);
  });
  plan.seal();
  plan.keep_stderr(config.keep_stderr);
  return plan;
}

bool is_verdict(const std::string& state) {
  for (const auto& row : sandbox::verdict_table)
    if (row.name == state) return true;
  return false;
}

}  // namespace plb::batch
