// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox verify PROVENANCE`: re-runs one scored run from its `.sandbox.json`. The provenance
// is read with a size bound, and its seal checked before anything else: the MAC under the host's
// key over every byte (provenance_seal.hpp). An edited, forged, truncated or unsigned (older, /1)
// provenance is refused there, so no path, limit or image it names is read, hashed or run; the fix
// is to re-score. Only then is it parsed strictly (provenance_reader.hpp). The predictions beside
// it must be the file it was sealed for: its recorded name (predictions_path) and digest, so an
// edited predictions file or another submission's provenance put beside it is refused. The model,
// the data (the recorded paths, or --model and --data) and the image must still have the recorded
// digests and the host's runsc the recorded release and platform. Every file is opened through no
// symbolic link and read no further than the size it may have (verify_files.hpp), and a file's
// digest is printed only when it is the recorded one. Each mismatch is named and has its own
// exit code, and nothing runs; only a changed runtime can be allowed (--allow-changed-runtime):
// a changed model, data or image would re-run something else. The re-run is sandbox::score() with
// the recorded features, ID column, task type and every limit (exactly sandbox-score's path),
// published at a fresh path; then both predictions files (local, so comparing them discloses
// nothing) are compared: `reproduced` (identical bytes) or `differs` (how many rows, by how much).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/exit_codes.hpp"
#include "plb/sandbox/runner.hpp"
#include "runner/host/host_key.hpp"
#include "runner/score/score_request.hpp"
#include "support/cancellation.hpp"

namespace plb::runner {

enum class verify_mismatch : std::uint8_t {
  provenance_refused,  // unreadable, unsealed, edited, forged or not a success's provenance
  model_changed,
  data_changed,
  image_changed,
  runtime_changed,
  predictions_changed,  // the published predictions are not the file the provenance was sealed for
  bundle_changed,       // the model bundle (recorded path, or --bundle) is not the recorded digest
};

struct verify_mismatch_info {
  verify_mismatch mismatch;
  int exit_code;
  std::string_view name;
};

// The codes are the rows of the core's one table (exit_codes.hpp), which holds each once.
inline constexpr int verify_differs_exit_code = sandbox::exit_code_named("differs");
inline constexpr std::array<verify_mismatch_info, 7> verify_mismatch_table{{
    {verify_mismatch::provenance_refused, sandbox::exit_code_named("provenance_refused"), "provenance_refused"},
    {verify_mismatch::model_changed, sandbox::exit_code_named("model_changed"), "model_changed"},
    {verify_mismatch::data_changed, sandbox::exit_code_named("data_changed"), "data_changed"},
    {verify_mismatch::image_changed, sandbox::exit_code_named("image_changed"), "image_changed"},
    {verify_mismatch::runtime_changed, sandbox::exit_code_named("runtime_changed"), "runtime_changed"},
    {verify_mismatch::predictions_changed, sandbox::exit_code_named("predictions_changed"), "predictions_changed"},
    {verify_mismatch::bundle_changed, sandbox::exit_code_named("bundle_changed"), "bundle_changed"},
}};
static_assert(
    [] {
      for (const auto& row : verify_mismatch_table)
        if (row.exit_code < 0) return false;
      return verify_differs_exit_code > 0;
    }(),
    "every result of verify has its row in exit_code_table");

constexpr const verify_mismatch_info& info(verify_mismatch m) noexcept {
  return verify_mismatch_table[static_cast<std::size_t>(m)];
}

struct verify_options {
  std::string provenance_path;
  std::string output;                 // "" : a fresh `<name>.verify-N.csv` beside the original
  std::string model_path, data_path;  // "" : the recorded paths
  std::string bundle_path;            // "" : the recorded bundle's path (a provenance without one: none)
  bool allow_changed_runtime = false;
  field_names names = api_field_names();  // how the caller names model_path and data_path
};

struct verify_problem {
  verify_mismatch mismatch;
  std::string message;
};

struct predictions_comparison {
  bool identical = false;
  std::uint64_t rows = 0;            // of the re-run
  std::uint64_t differing_rows = 0;  // a row missing on either side counts as differing
  double max_abs_difference = 0;     // over the rows both have (inf when a value is not a number)
};

struct verify_outcome {
  std::string result;  // "reproduced", "differs", a mismatch's name or a verdict's name
  int exit_code = 0;
  std::vector<verify_problem> problems;  // every mismatch found, the first decides the exit code
  std::string message;                   // one line, the tool's words
  std::string predictions_path;          // of the re-run, when it published
  std::optional<predictions_comparison> comparison;
};

// What verify finds before it asks the daemon anything: the provenance (its seal under `key`
// first, then the strict read), then the model's and the data's digests. A refused provenance is
// the only problem then, and nothing it names has been opened.
struct verify_checks {
  sandbox::provenance_record record;
  std::string model_path, data_path, original;
  std::string bundle_path;  // the bundle checked and re-run with, "" when the run had none
  std::vector<verify_problem> problems;
  bool provenance_trusted = false;
  void add(verify_mismatch m, std::string message) { problems.push_back({m, std::move(message)}); }
};
verify_checks check_provenance_and_inputs(const verify_options& options, const host_key& key);

// Everything verify does, under this host's key; the caller prints. Throws interrupted on a stop request.
verify_outcome verify_run(const verify_options& options, const sandbox::scoring_options& scoring);

// Two predictions CSVs as render_predictions_csv writes them, row by row (the prediction is the
// text after a row's last comma).
predictions_comparison compare_predictions(std::string_view original, std::string_view rerun);

// The first of `<base>.verify-1.csv`, `-2`, ... (base: `original` without ".csv") where neither the
// file nor its provenance exists.
std::string fresh_verify_path(const std::string& original);

}  // namespace plb::runner
