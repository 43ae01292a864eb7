// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_summary.hpp"

#include <cmath>
#include <cstdio>

#include <boost/json.hpp>

#include "batch/batch_claims.hpp"
#include "runner/for_batch.hpp"
#include "support/dir_files.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

namespace json = boost::json;
constexpr std::string_view other_states[] = {"pending", "running", "interrupted", "not_run"};

// One line's values, each checked: what both renderings show.
struct summary_row {
  std::string_view state;
  std::optional<int> exit_code;
  std::string message;
  std::optional<double> startup, wall, cpu;  // wall: the script's own time (run_clock.hpp)
  std::optional<std::uint64_t> memory_peak;
  std::string predictions_sha256;
  std::string node, worker;
  std::optional<std::uint64_t> bundle_bytes;
};

// A figure the summary shows: finite and non-negative (-0 as 0), else none.
std::optional<double> figure(double v) { return std::isfinite(v) && v >= 0 ? std::optional(v + 0.0) : std::nullopt; }

std::string digest_or_empty(const std::string& s) {
  if (s.size() != 64) return {};
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
  return s;
}

summary_row row_of(const line_outcome& o) {
  summary_row r;
  r.state = summary_state(o.state);
  if (o.exit_code >= 0 && o.exit_code <= 255) r.exit_code = o.exit_code;
  r.message = summary_text(o.message);
  if (o.usage) {
    r.startup = figure(o.usage->startup_seconds);
    r.wall = figure(o.usage->wall_seconds);
    r.cpu = figure(o.usage->cpu_seconds);
    r.memory_peak = o.usage->memory_peak_bytes;
  }
  r.predictions_sha256 = digest_or_empty(o.predictions_sha256);
  r.node = is_safe_name(o.node) ? o.node : std::string();
  r.worker = is_safe_name(o.worker) ? o.worker : std::string();
  r.bundle_bytes = o.bundle_bytes;
  return r;
}

std::string number_text(std::optional<double> v) {
  if (!v) return {};
  // Room for any finite double in %.3f (DBL_MAX has 309 integer digits): snprintf returns the
  // length it wanted, which must never be read past the buffer.
  char buf[400];
  const int n = std::snprintf(buf, sizeof buf, "%.3f", *v);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

json::value nullable(const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); }

json::value rounded(std::optional<double> seconds) {
  return seconds ? json::value(std::round(*seconds * 1000) / 1000) : json::value(nullptr);
}

// The workers' own reports, each field checked again (names safe, the message one printable line).
json::array workers_json(const std::vector<worker_report>& workers) {
  json::array out;
  for (const auto& w : workers)
    if (is_safe_name(w.worker) && is_safe_name(w.node))
      out.push_back(json::object{{"worker", w.worker},
                                 {"node", w.node},
                                 {"state", summary_text(w.state)},
                                 {"message", summary_text(w.message)}});
  return out;
}

}  // namespace

std::string_view summary_state(const std::string& state) {
  for (const auto& row : sandbox::verdict_table)
    if (row.name == state) return row.name;
  for (const std::string_view s : other_states)
    if (s == state) return s;
  return {};
}

std::string summary_text(const std::string& message) {
  bool printable = true;
  for (const char c : message) printable &= c >= 0x20 && c <= 0x7e;
  std::string text = printable ? message : one_line(message);
  // insert(0, 1, c), not insert(0, "'"): GCC 12's -Wrestrict false positive (PR 105651) in Release.
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) text.insert(0, 1, '\'');
  return text;
}

void render_summary_csv(const batch_plan& plan, const outcome_list& outcomes, const text_sink& sink) {
  sink(
      "id,line,verdict,exit_code,message,startup_seconds,wall_seconds,cpu_seconds,memory_peak_bytes,node,worker,"
      "predictions_sha256,bundle_bytes\n");
  std::string out;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const summary_row r = row_of(outcomes[i]);
    out.clear();
    out.append(plan.id(i));
    out += ',';
    out += std::to_string(plan.line(i));
    out += ',';
    out.append(r.state);
    out += ',';
    out += r.exit_code ? std::to_string(*r.exit_code) : std::string();
    out += ",";
    append_csv_field(out, r.message);  // printable: only , and " can make it quoted
    // Appended piece by piece: "," + a temporary trips GCC 12's -Wrestrict (PR 105651) in Release.
    out += ',';
    out += number_text(r.startup);
    out += ',';
    out += number_text(r.wall);
    out += ',';
    out += number_text(r.cpu);
    out += ',';
    out += r.memory_peak ? std::to_string(*r.memory_peak) : std::string();
    out += ',';
    out += r.node;
    out += ',';
    out += r.worker;
    out += ',';
    out += r.predictions_sha256;
    out += ',';
    out += r.bundle_bytes ? std::to_string(*r.bundle_bytes) : std::string();  // empty: no bundle
    out += '\n';
    sink(out);
  }
}

std::string render_summary_csv(const batch_plan& plan, const outcome_list& outcomes) {
  std::string out;
  render_summary_csv(plan, outcomes, [&](std::string_view text) { out.append(text); });
  return out;
}

std::map<std::string, std::size_t> count_states(const outcome_list& outcomes) {
  std::map<std::string, std::size_t> counts;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    ++counts[std::string(summary_state(std::string(outcomes.state(i))))];
  return counts;
}

void render_summary_json(const summary_header& h, const batch_plan& plan, const outcome_list& outcomes,
                         const text_sink& sink) {
  bool complete = true;
  for (std::size_t i = 0; i < plan.size(); ++i)
    complete &= is_verdict(std::string(summary_state(std::string(outcomes.state(i)))));
  json::object counts;
  for (const auto& [state, n] : count_states(outcomes)) counts[state] = n;
  const json::object doc{{"schema", "plb-sandbox/batch-summary/1"},
                         {"privacy", "local-only: do not publish or return to the model submitters"},
                         {"manifest", h.manifest},
                         {"manifest_sha256", h.manifest_sha256},
                         {"output_dir", h.output_dir},
                         {"engine", h.backend},  // schema 1 named the backend so; kept for its readers
                         {"started_at", h.started_at},
                         {"finished_at", h.finished_at.empty() ? json::value(nullptr) : json::value(h.finished_at)},
                         {"wall_seconds", rounded(h.wall_seconds)},
                         {"lines", plan.size()},
                         {"complete", complete},
                         {"counts", std::move(counts)},
                         {"workers", workers_json(h.workers)},
                         {"rows", json::array()}};
  // The document with its rows left out ends in `"rows":[]}`: the rows go between the brackets,
  // each serialized on its own, so the file is the same bytes as the whole document serialized.
  const std::string head = json::serialize(doc);
  constexpr std::string_view tail = "]}";
  sink(std::string_view(head).substr(0, head.size() - tail.size()));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const summary_row r = row_of(outcomes[i]);
    const sandbox::SandboxLimits& limits = plan.limits(i);
    json::object row{{"id", json::string_view(plan.id(i).data(), plan.id(i).size())},
                     {"line", plan.line(i)},
                     {"verdict", r.state},
                     {"exit_code", r.exit_code ? json::value(*r.exit_code) : json::value(nullptr)},
                     {"message", r.message},
                     {"startup_seconds", rounded(r.startup)},
                     {"wall_seconds", rounded(r.wall)},
                     {"cpu_seconds", rounded(r.cpu)},
                     {"memory_peak_bytes", r.memory_peak ? json::value(*r.memory_peak) : json::value(nullptr)},
                     {"node", nullable(r.node)},
                     {"worker", nullable(r.worker)},
                     {"predictions_sha256", nullable(r.predictions_sha256)},
                     {"wall_limit_seconds", limits.wall_seconds},
                     {"memory_limit_mib", limits.memory_mib},
                     {"runtime_image", plan.runtime_image(i)}};
    if (r.bundle_bytes) row["bundle_bytes"] = *r.bundle_bytes;  // a bundle line's; none without one
    if (i > 0) sink(",");
    sink(json::serialize(row));
  }
  sink(tail);
  sink("\n");
}

std::string render_summary_json(const summary_header& h, const batch_plan& plan, const outcome_list& outcomes) {
  std::string out;
  render_summary_json(h, plan, outcomes, [&](std::string_view text) { out.append(text); });
  return out;
}

void write_summary(const output_dir& dir, const summary_header& h, const batch_plan& plan,
                   const outcome_list& outcomes) {
  // Each file streamed to its temporary and renamed whole: never held whole in memory, never seen half-written.
  file_replacement csv(dir.fd.get(), dir.path, "batch-summary.csv");
  render_summary_csv(plan, outcomes, [&](std::string_view text) { csv.append(text); });
  csv.commit();
  file_replacement json_file(dir.fd.get(), dir.path, "batch-summary.json");
  render_summary_json(h, plan, outcomes, [&](std::string_view text) { json_file.append(text); });
  json_file.commit();
}

}  // namespace plb::batch
