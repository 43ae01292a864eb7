// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_finish.hpp"

#include <algorithm>
#include <iostream>
#include <random>

#include "batch/batch_output_dir.hpp"
#include "batch/batch_report_io.hpp"
#include "runner/for_batch.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

report_verify_row verify_line(const output_dir& dir, const verify_candidate& c, const batch_finish_flags& flags,
                              const sandbox::stop_source& stop) {
  verify_options o;
  o.provenance_path = dir.path + "/" + provenance_name(c.id);
  o.output = fresh_verify_path(dir.path + "/verify/" + csv_name(c.id));
  o.allow_changed_runtime = flags.allow_changed_runtime;
  sandbox::scoring_options scoring;
  scoring.stop = &stop;
  const verify_outcome out = verify_run(o, scoring);
  report_verify_row row;
  row.id = c.id;
  row.result = out.result;
  row.message = out.message;
  if (out.comparison) {
    row.differing_rows = out.comparison->differing_rows;
    row.max_abs_difference = out.comparison->max_abs_difference;
  }
  std::cerr << "plb-sandbox: verify " << c.id << ": " << out.result << ": " << one_line(out.message) << std::endl;
  return row;
}

void verify_lines(const batch_finish_flags& flags, const batch_config& config, const batch_plan& plan,
                  const outcome_list& outcomes, const sandbox::stop_source& stop) {
  std::vector<verify_candidate> successes;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (outcomes.state(i) != "success") continue;
    const line_outcome o = outcomes[i];
    if (!o.usage) continue;
    successes.push_back({std::string(plan.id(i)), plan.line(i), o.usage->wall_seconds, o.usage->cpu_seconds,
                         o.usage->memory_peak_bytes});
  }
  std::optional<std::uint64_t> seed = flags.verify_seed;
  if (flags.verify_sample && !seed) seed = (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
  const auto chosen = choose_verified(std::move(successes), flags.verify, flags.verify_by, seed);
  const output_dir dir = open_output_dir(config.output_dir, true);
  (void)open_output_subdir(dir.fd.get(), dir.path, "verify");
  std::vector<report_verify_row> rows;
  const std::string selected = selection_text(flags.verify, flags.verify_by, seed);
  try {
    for (const auto& c : chosen) rows.push_back(verify_line(dir, c, flags, stop));
  } catch (const interrupted&) {
    replace_file_at(dir.fd.get(), dir.path, verify_csv_name, render_verify_csv(rows, selected + " (stopped)"));
    throw;
  }
  replace_file_at(dir.fd.get(), dir.path, verify_csv_name, render_verify_csv(rows, selected));
  std::cout << "verify: " << rows.size() << " line(s) re-run: " << dir.path << "/" << verify_csv_name << std::endl;
}

void write_report_or_warn(const std::string& dir) {
  try {
    const std::string path = write_batch_report(dir);
    std::cout << "report: " << path << std::endl;
  } catch (const failure& f) {
    std::cerr << "plb-sandbox: the report was not written: " << one_line(f.what()) << std::endl;
  }
}

}  // namespace

std::vector<verify_candidate> choose_verified(std::vector<verify_candidate> s, std::size_t count, const std::string& by,
                                              std::optional<std::uint64_t> seed) {
  if (seed) {
    std::mt19937_64 random(*seed);  // Fisher-Yates with the generator's own output: the same seed, the same lines
    for (std::size_t i = s.size(); i > 1; --i) std::swap(s[i - 1], s[random() % i]);
  } else {
    const auto key = [&](const verify_candidate& c) {
      if (by == "cpu_seconds") return c.cpu;
      if (by == "memory_peak_bytes") return static_cast<double>(c.memory);
      if (by == "line") return -static_cast<double>(c.line);
      return c.wall;
    };
    std::stable_sort(s.begin(), s.end(), [&](const auto& a, const auto& b) { return key(a) > key(b); });
  }
  if (s.size() > count) s.resize(count);
  return s;
}

std::string selection_text(std::size_t count, const std::string& by, std::optional<std::uint64_t> seed) {
  if (seed) return "random sample of " + std::to_string(count) + " successes; seed " + std::to_string(*seed);
  return "top " + std::to_string(count) + " successes by " + by;
}

void finish_batch(const batch_finish_flags& flags, const batch_config& config, const batch_plan& plan,
                  const outcome_list& outcomes, bool stopped, const sandbox::stop_source& stop,
                  const std::function<void()>& release) {
  try {
    if (flags.verify > 0 && !stopped) verify_lines(flags, config, plan, outcomes, stop);
  } catch (const interrupted&) {
    if (!flags.no_report) write_report_or_warn(config.output_dir);
    throw;
  }
  if (release) release();
  if (!flags.no_report) write_report_or_warn(config.output_dir);
}

}  // namespace plb::batch
