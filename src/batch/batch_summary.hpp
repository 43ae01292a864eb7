// SPDX-License-Identifier: Apache-2.0
// The batch's summary, `batch-summary.csv` and `batch-summary.json`, replaced atomically as lines
// finish. Every field is rendered from a validated value, whatever a line's outcome holds: states
// from the tool's own list, exit statuses 0-255, digests as 64 lowercase hex digits (else empty),
// figures only when finite and non-negative, and messages as one line of printable ASCII. No
// cell can add a row, carry a control byte, or begin with = + - @ unless it is a number or a
// manifest ID (which cannot begin with one).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_output_dir.hpp"

namespace plb::batch {

struct summary_header {
  std::string manifest, manifest_sha256, output_dir, backend;
  std::string started_at, finished_at;      // UTC, ISO 8601; finished_at "" until the batch ends
  std::optional<double> wall_seconds;       // the batch's, once it ended
  std::vector<worker_report> workers = {};  // a queued backend's: what each worker said of itself (batch_claims.hpp)
};

// A state the summary may show (a verdict, or pending, running, interrupted, not_run), or "".
std::string_view summary_state(const std::string& state);

// A message as one printable line; one that would begin with = + - or @ gets a ' in front, so a
// spreadsheet shows it as text.
std::string summary_text(const std::string& message);

// Where a rendering goes, piece by piece: a file being replaced (write_summary), or a string.
using text_sink = std::function<void(std::string_view)>;

// The summary's rows in manifest order, one per plan line; `outcomes` has one per line. Each row
// is rendered and handed to `sink` on its own: nothing holds the whole text but a string sink.
void render_summary_csv(const batch_plan& plan, const outcome_list& outcomes, const text_sink& sink);
void render_summary_json(const summary_header& header, const batch_plan& plan, const outcome_list& outcomes,
                         const text_sink& sink);
std::string render_summary_csv(const batch_plan& plan, const outcome_list& outcomes);
std::string render_summary_json(const summary_header& header, const batch_plan& plan, const outcome_list& outcomes);

// Both summary files, each streamed to a temporary and renamed into place in `dir`. Throws
// failure(internal_error); the files then keep their previous contents.
void write_summary(const output_dir& dir, const summary_header& header, const batch_plan& plan,
                   const outcome_list& outcomes);

// The summary's counts by state ("success": 3, "timeout": 1, "pending": 2, ...).
std::map<std::string, std::size_t> count_states(const outcome_list& outcomes);

}  // namespace plb::batch
