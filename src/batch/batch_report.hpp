// SPDX-License-Identifier: Apache-2.0
// `batch-report.html`: the operator's view of a round, one self-contained file. It is rendered by
// a pure function from values the tool checked when it read them (batch_report_load.cpp): numbers,
// enum names, manifest IDs, digests and the tool's own messages. Nothing the script printed is
// among them, and every value is HTML-escaped whatever its source. The page loads nothing: its
// style, its charts (inline SVG, readable without script) and its small sorting and paging script
// are all in the file, and the only links are relative ones to each line's provenance file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plb::batch {

inline constexpr const char* report_name = "batch-report.html";
inline constexpr const char* verify_csv_name = "batch-verify.csv";

// Up to this many lines the wall and memory charts have one bar per line; beyond it, one bar per
// group of consecutive lines (the group's highest figure, coloured by its worst verdict).
inline constexpr std::size_t report_chart_bars = 150;
// Rows the inline script shows per page (without script the whole table shows).
inline constexpr std::size_t report_page_rows = 200;
// A message is shown up to this many bytes (the tool's own words; the summary has them whole).
inline constexpr std::size_t report_message_bytes = 160;
// The stated bound: a round of 10,000 lines renders in under this many bytes (a unit test checks it).
inline constexpr std::size_t report_bytes_for_10000_lines = std::size_t{5} * 1024 * 1024;

struct report_row {
  std::string id;
  std::size_t line = 0;
  std::string state;  // a verdict's name, or pending, running, interrupted, not_run
  std::optional<int> exit_code;
  std::string message;
  std::optional<double> startup, wall, cpu;  // seconds; wall: the script's own run (run_clock.hpp)
  std::optional<std::uint64_t> memory_peak;
  std::optional<std::uint64_t> wall_limit, memory_limit_mib;
  std::optional<std::uint64_t> bundle_bytes;  // a bundle run's snapshot (none: no bundle, or an older summary)
  std::string node;
  std::string predictions_sha256;
  bool provenance = false;   // `<id>.csv.sandbox.json` is there to link to
  bool diagnostics = false;  // `<id>.stderr` is there (--keep-stderr): named, never read or linked
};

struct report_verify_row {
  std::string id;
  std::string result;  // reproduced, differs, or the verdict / mismatch that stopped it
  std::optional<std::uint64_t> differing_rows;
  std::optional<double> max_abs_difference;
  std::string message;
};

struct report_input {
  std::string output_dir, manifest, manifest_sha256, backend;
  bool complete = false;  // every line reached a verdict
  std::string started_at, finished_at;
  std::optional<double> wall_seconds;  // the batch's, when it finished
  std::vector<std::string> runtimes;   // distinct "runsc <release> on <platform>" of the provenances
  std::vector<std::string> images;     // distinct image IDs of the lines
  std::vector<std::string> nodes;      // distinct nodes of the lines
  std::vector<report_row> rows;
  std::vector<report_verify_row> verify;
  std::string verify_note;  // how the verified lines were chosen (column or seed)
};

// A chart's value axis, chosen for the data rather than the limit: ticks every `step` from 0 to
// `top` (a 1, 2, 2.5 or 5 times a power of ten; at most 5 steps), with room for the highest
// value. The limit is drawn as a marked line when it is in range (the highest value is at least
// half of it: then the top holds it too); otherwise it is said in the caption, and bars of a few
// percent of a far limit still fill the chart.
struct chart_scale {
  double top = 1;
  double step = 0.25;
  bool limit_in_range = false;
  friend bool operator==(const chart_scale&, const chart_scale&) = default;
};
chart_scale choose_scale(double highest, std::optional<double> limit);

// Text made safe for HTML text and attribute values: & < > " ' as entities, and every byte outside
// printable ASCII as \xNN (so no control byte, no invalid UTF-8 and no bidi override reaches it).
std::string html_escape(std::string_view text);

// The colour the page gives a state (failures by verdict).
std::string_view state_colour(std::string_view state);

// The whole page. Never throws but for std::bad_alloc.
std::string render_report(const report_input& input);
// The same handed to `sink` a piece at a time (the head, then each row of the table, then the end).
void render_report(const report_input& input, const std::function<void(std::string_view)>& sink);

// The charts alone (inline SVG), as render_report embeds them.
std::string render_charts(const report_input& input);

}  // namespace plb::batch
