// SPDX-License-Identifier: Apache-2.0
#include "runner/score/verify_files.hpp"

#include <filesystem>
#include <system_error>

#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/limits.hpp"
#include "runner/score/bundle_snapshot.hpp"
#include "support/no_symlinks.hpp"

namespace plb::runner {
namespace {

// Why a file is not the recorded one, in words that never carry its own digest.
std::string differs(const problem& p, const std::string& bound) {
  return is_too_large(p) ? "differs from the recorded one (larger than its " + bound + ")" : p.what;
}

void check_one(verify_checks& c, verify_mismatch m, const char* what, const std::string& path, std::size_t max_bytes,
               const std::string& bound, const sandbox::sha256_digest& recorded) {
  const auto d = digest_bounded_file(path, max_bytes);
  if (!d) return c.add(m, std::string(what) + " " + path + ": " + differs(d.error(), bound));
  if (*d != recorded.hex())
    c.add(m, std::string(what) + " " + path + " differs from the recorded one (the provenance records SHA-256 " +
                 recorded.hex() + ")");
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

}  // namespace

std::size_t predictions_bound(const sandbox::provenance_record& r) {
  constexpr std::uint64_t row_bytes = 1 + 24 + 1;  // a comma, the longest number, a newline
  constexpr std::uint64_t number_label = 20;       // the most digits of a row's number
  const std::uint64_t rows = std::min<std::uint64_t>(r.rows, sandbox::info(sandbox::limit_field::input_values).max);
  // Each ID quoted, its quotes doubled: twice the ID column's most bytes, and two quotes a row.
  const std::uint64_t labels =
      r.id_column.empty() ? rows * number_label : 2 * sandbox::csv_options{}.max_id_bytes + 2 * rows;
  return static_cast<std::size_t>(2 * r.id_column.size() + 2 + sizeof "row,prediction\n" + rows * row_bytes + labels);
}

void check_predictions(verify_checks& c) {
  const std::string here = absolute_path(c.original);
  if (here != c.record.predictions_path)
    return c.add(verify_mismatch::predictions_changed,
                 "predictions " + c.original + ": the provenance beside them was sealed for " +
                     c.record.predictions_path + ", another file (a provenance vouches only for its own predictions)");
  const std::string bound = std::to_string(predictions_bound(c.record)) + " bytes";
  check_one(c, verify_mismatch::predictions_changed, "predictions", c.original, predictions_bound(c.record), bound,
            c.record.predictions_sha256);
}

void check_inputs(verify_checks& c) {
  const std::size_t script = sandbox::bytes(c.record.limits.script_mib);
  check_one(c, verify_mismatch::model_changed, "model", c.model_path, script,
            std::to_string(c.record.limits.script_mib) + " MiB script limit", c.record.model_sha256);
  // The size is recorded with the data's path; a record without that path (given --data) has none.
  const bool sized = !c.record.data_path.empty();
  check_one(c, verify_mismatch::data_changed, "data", c.data_path, sized ? c.record.input_bytes : unbounded_size,
            "recorded " + std::to_string(c.record.input_bytes) + " bytes", c.record.input_sha256);
  if (c.record.bundle_sha256) check_bundle(c);
}

void check_bundle(verify_checks& c) {
  // Walked as the run's snapshot walks it (every bound the run had, nothing copied); its own
  // digest is never printed, as the other files'.
  const std::string what = bundle_named("bundle", c.bundle_path);
  const auto listing = digest_bundle(c.bundle_path, c.record.limits);
  if (!listing) return c.add(verify_mismatch::bundle_changed, what + ": " + listing.error().message());
  if (listing->digest.hex() != c.record.bundle_sha256->hex())
    c.add(verify_mismatch::bundle_changed, what + " differs from the recorded one (the provenance records SHA-256 " +
                                               c.record.bundle_sha256->hex() + ")");
}

result<std::string> read_recorded_predictions(const verify_checks& c) {
  auto text = read_bounded_file(c.original, predictions_bound(c.record));
  if (!text) return problem::says(differs(text.error(), std::to_string(predictions_bound(c.record)) + " bytes"));
  if (sandbox::sha256_of(*text).digest.hex() != c.record.predictions_sha256.hex())
    return problem::says("changed while the re-run ran: they are no longer the recorded predictions");
  return text;
}

}  // namespace plb::runner
