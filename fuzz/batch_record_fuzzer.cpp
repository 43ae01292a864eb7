// SPDX-License-Identifier: Apache-2.0
// The files resume reads from an output directory anyone might have written to: a line's record
// (`<id>.result.json`) and its provenance, and the summary rendered from what they hold.
// Byte 0 chooses the mode, the rest is the input:
//   0: a record's bytes as found: trusted only if its MAC verifies, and then it is exactly what
//      the sealer makes of its own body (nobody without the key can produce one);
//   1: a record body the harness seals with the fuzz key, so the fuzzer reaches the field checks
//      behind the MAC;
//   2: a provenance file as resume parses it (its fingerprint, digest and usage);
//   3: a line's outcome from three fields split at 0xff bytes (state, message, digest), as a
//      forged record could have held them before its fields were checked.
// Properties: nothing throws; a trusted record holds only values the tool writes; and the summary
// row rendered from whatever was accepted is one line of printable ASCII, has exactly the
// header's nine cells, and no cell begins with = + - @ unless it is a number or the ID.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "batch/batch_records.hpp"
#include "batch/batch_summary.hpp"
#include "fuzz_check.hpp"

namespace {

namespace pt = plb::batch;

const pt::host_key& fuzz_key() {
  static const pt::host_key key(pt::host_key::bytes_type{0x70, 0x6c, 0x62, 0x2d, 0x66, 0x75, 0x7a, 0x7a});
  return key;
}

bool is_digest(std::string_view s) {
  if (s.size() != 64) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_number(std::string_view cell) {
  if (!cell.empty() && cell.front() == '-') cell.remove_prefix(1);
  return !cell.empty() && cell.find_first_not_of("0123456789.") == std::string_view::npos;
}

// The summary row of `o` for line "a": one printable line of twelve cells (startup_seconds is the
// sixth), none a formula.
void check_summary_row(const pt::line_outcome& o) {
  pt::batch_plan items;
  items.add(1, std::string(1, 'a'), {});
  const pt::outcome_list outcomes(std::vector<pt::line_outcome>{o});
  const std::string csv = pt::render_summary_csv(items, outcomes);
  const std::string_view row = std::string_view(csv).substr(csv.find('\n') + 1);
  FUZZ_CHECK(!row.empty() && row.back() == '\n');
  std::vector<std::string_view> cells;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    FUZZ_CHECK(c == '\n' ? i + 1 == row.size() : c >= 0x20 && c <= 0x7e);
    if (c == '"') quoted = !quoted;
    if ((c == ',' && !quoted) || c == '\n') {
      cells.push_back(row.substr(start, i - start));
      start = i + 1;
    }
  }
  FUZZ_CHECK(!quoted && cells.size() == 13);
  FUZZ_CHECK(cells[0] == "a" && cells[1] == "1");
  for (const std::string_view cell : cells)
    FUZZ_CHECK(cell.empty() || std::string_view("=+-@").find(cell.front()) == std::string_view::npos ||
               is_number(cell));
  FUZZ_CHECK(cells[2].empty() || !pt::summary_state(std::string(cells[2])).empty());
  FUZZ_CHECK(cells[10].empty() || is_digest(cells[10]));
  (void)pt::render_summary_json({"m", "s", "/out", "local", {}, {}, {}, {}}, items, outcomes);
}

void check_record(std::string_view text, bool sealed_here) {
  const auto r = pt::parse_record(text, "a", fuzz_key());
  if (!r) {
    FUZZ_CHECK(!r.error().what.empty());
    return;
  }
  const std::size_t body = text.rfind(",\"mac\":\"");
  FUZZ_CHECK(body != std::string_view::npos);
  if (!sealed_here) FUZZ_CHECK(pt::seal_record(std::string(text.substr(0, body)), fuzz_key()) == text);
  const pt::line_outcome& o = r->outcome;
  FUZZ_CHECK(pt::is_verdict(o.state) && o.exit_code >= 0 && o.exit_code <= 255);
  for (const char c : o.message) FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
  const bool success = o.state == "success";
  FUZZ_CHECK(success ? is_digest(o.predictions_sha256) && is_digest(r->provenance_sha256)
                     : o.predictions_sha256.empty() && r->provenance_sha256.empty());
  if (o.usage) FUZZ_CHECK(std::isfinite(o.usage->wall_seconds) && o.usage->wall_seconds >= 0);
  if (o.usage) FUZZ_CHECK(std::isfinite(o.usage->cpu_seconds) && o.usage->cpu_seconds >= 0);
  check_summary_row(o);
}

void check_provenance(std::string_view text) {
  const auto o = pt::parse_json_object(text);
  if (!o) return;
  (void)pt::fingerprint_of_provenance(*o);
  const auto usage = pt::usage_from_json(o->if_contains("usage"));
  if (usage) FUZZ_CHECK(std::isfinite(usage->wall_seconds) && usage->wall_seconds >= 0);
  if (usage) FUZZ_CHECK(std::isfinite(usage->cpu_seconds) && usage->cpu_seconds >= 0);
  pt::line_outcome kept{"success", 0, "kept", usage, "", {}};
  if (const auto* d = o->if_contains("predictions_sha256"); d && d->is_string())
    kept.predictions_sha256 = std::string(d->get_string());
  check_summary_row(kept);
}

void check_outcome(std::string_view text) {
  std::vector<std::string> fields(1);
  for (const char c : text) {
    if (static_cast<unsigned char>(c) == 0xff && fields.size() < 3)
      fields.emplace_back();
    else
      fields.back() += c;
  }
  fields.resize(3);
  const int code = text.empty() ? -1 : static_cast<signed char>(text.front()) * 3;
  check_summary_row({fields[0], code, fields[1], plb::sandbox::sandbox_usage{-0.0, 1e300, 1, 2, 3}, fields[2], {}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] & 3) {
    case 0: check_record(input, false); break;
    case 1: check_record(pt::seal_record(std::string(input), fuzz_key()), true); break;
    case 2: check_provenance(input); break;
    default: check_outcome(input); break;
  }
  return 0;
}
