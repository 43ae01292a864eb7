// SPDX-License-Identifier: Apache-2.0
// The summary (batch_summary) of plans read in a scratch directory: every cell from a validated
// value, streamed a row at a time as the whole document's bytes, its file replaced whole or not at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_summary.hpp"
#include "batch_fixture.hpp"
#include "support/dir_files.hpp"

namespace plb::batch {
namespace {

namespace json = boost::json;

TEST_F(BatchFiles, SummaryQuotesMessagesAndCountsStates) {
  write("manifest.jsonl", line("a") + line("b"));
  const batch_plan plan = plan_batch(config());
  std::vector<line_outcome> outcomes(2);
  outcomes[0] = {"success", 0, "ok", sandbox::sandbox_usage{1.5, 0.25, 1024, 0, 0, 2.25}, hex64, "n1", "7_0", 47185920};
  outcomes[1] = {"not_run", -1, "a, \"quoted\" reason", std::nullopt, ""};
  EXPECT_EQ(render_summary_csv(plan, outcomes),
            "id,line,verdict,exit_code,message,startup_seconds,wall_seconds,cpu_seconds,memory_peak_bytes,node,"
            "worker,predictions_sha256,bundle_bytes\n"
            "a,1,success,0,ok,2.250,1.500,0.250,1024,n1,7_0," +
                hex64 + ",47185920\nb,2,not_run,,\"a, \"\"quoted\"\" reason\",,,,,,,,\n");
  const auto json = render_summary_json({"m", "s", dir_, "local", {}, {}, {}, {}}, plan, outcomes);
  EXPECT_NE(json.find(R"("complete":false)"), std::string::npos);
  EXPECT_NE(json.find(R"("counts":{"not_run":1,"success":1})"), std::string::npos);
  EXPECT_NE(json.find(R"("bundle_bytes":47185920)"), std::string::npos) << "a bundle run's bytes";
  EXPECT_EQ(json.find(R"("bundle_bytes":null)"), std::string::npos) << "no key for a line without one";
}

// The summary as it was rendered before it was streamed: one document tree, serialized whole.
std::string whole_document(const summary_header& h, const batch_plan& plan, const outcome_list& outcomes) {
  const auto nullable = [](const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); };
  const auto rounded = [](std::optional<double> v) {
    return v ? json::value(std::round(*v * 1000) / 1000) : json::value(nullptr);
  };
  json::array rows;
  bool complete = true;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const line_outcome o = outcomes[i];
    complete &= is_verdict(o.state);
    rows.push_back(
        json::object{{"id", std::string(plan.id(i))},
                     {"line", plan.line(i)},
                     {"verdict", o.state},
                     {"exit_code", o.exit_code >= 0 ? json::value(o.exit_code) : json::value(nullptr)},
                     {"message", summary_text(o.message)},
                     {"startup_seconds", rounded(o.usage ? std::optional(o.usage->startup_seconds) : std::nullopt)},
                     {"wall_seconds", rounded(o.usage ? std::optional(o.usage->wall_seconds) : std::nullopt)},
                     {"cpu_seconds", rounded(o.usage ? std::optional(o.usage->cpu_seconds) : std::nullopt)},
                     {"memory_peak_bytes", o.usage ? json::value(o.usage->memory_peak_bytes) : json::value(nullptr)},
                     {"node", nullable(o.node)},
                     {"worker", nullable(o.worker)},
                     {"predictions_sha256", nullable(o.predictions_sha256)},
                     {"wall_limit_seconds", plan.limits(i).wall_seconds},
                     {"memory_limit_mib", plan.limits(i).memory_mib},
                     {"runtime_image", plan.runtime_image(i)}});
  }
  json::object counts;
  for (const auto& [state, n] : count_states(outcomes)) counts[state] = n;
  json::array workers;
  for (const auto& w : h.workers)
    workers.push_back(json::object{{"worker", w.worker}, {"node", w.node}, {"state", w.state}, {"message", w.message}});
  const json::object doc{{"schema", "plb-sandbox/batch-summary/1"},
                         {"privacy", "local-only: do not publish or return to the model submitters"},
                         {"manifest", h.manifest},
                         {"manifest_sha256", h.manifest_sha256},
                         {"output_dir", h.output_dir},
                         {"engine", h.backend},
                         {"started_at", h.started_at},
                         {"finished_at", nullable(h.finished_at)},
                         {"wall_seconds", rounded(h.wall_seconds)},
                         {"lines", plan.size()},
                         {"complete", complete},
                         {"counts", std::move(counts)},
                         {"workers", std::move(workers)},
                         {"rows", std::move(rows)}};
  return json::serialize(doc) + "\n";
}

TEST_F(BatchScale, SummaryIsStreamedRowByRowAsTheSameBytes) {
  const batch_plan plan = big_plan();
  outcome_list outcomes(many);
  for (std::size_t i = 0; i < many; ++i)
    outcomes.set(i, i % 3 == 0 ? line_outcome{"success", 0, "fine, \"quoted\"",
                                              sandbox::sandbox_usage{0.1234 * static_cast<double>(i), 1e-9, i, 0, 0},
                                              hex64, "n1", "7_0"}
                               : line_outcome{"timeout", 5, "slow", std::nullopt, "", "n2", "7_1"});
  const summary_header h{
      "/m.jsonl", hex64, dir_, "local", "2026-12-01T10:00:00Z", {}, 1.25, {{"7_0", "n1", "done", "x"}}};
  std::size_t pieces = 0, largest = 0;
  std::string joined;
  render_summary_json(h, plan, outcomes, [&](std::string_view piece) {
    ++pieces;
    largest = std::max(largest, piece.size());
    joined.append(piece);
  });
  EXPECT_GE(pieces, many) << "a piece per row at least";
  EXPECT_LT(largest, 2048u) << "no piece holds more than the header or one row";
  EXPECT_EQ(joined, whole_document(h, plan, outcomes));
  pieces = largest = 0;
  render_summary_csv(plan, outcomes, [&](std::string_view piece) {
    ++pieces;
    largest = std::max(largest, piece.size());
  });
  EXPECT_EQ(pieces, many + 1);
  EXPECT_LT(largest, 1024u);
}

TEST_F(BatchScale, AReplacedFileIsTheOldOrTheNewNeverAPart) {
  const output_dir dir = out();
  replace_file_at(dir.fd.get(), dir.path, "s.csv", "old\n");
  {
    file_replacement f(dir.fd.get(), dir.path, "s.csv");
    f.append(std::string(200'000, 'x'));  // past the buffer: some of it is in the temporary already
  }                                       // destroyed uncommitted, as when rendering throws
  std::ifstream in(dir_ + "/s.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "old\n");
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_NE(e.path().filename().string().rfind(".plb-batch-", 0), 0u) << "a temporary was left behind: " << e.path();
  {
    file_replacement f(dir.fd.get(), dir.path, "s.csv");
    f.append("new ");
    f.append(std::string(100'000, 'y'));
    f.commit();
  }
  std::ifstream again(dir_ + "/s.csv");
  std::stringstream now;
  now << again.rdbuf();
  EXPECT_EQ(now.str(), "new " + std::string(100'000, 'y'));
}

TEST_F(BatchTrust, ForgedSummaryFieldsCannotAddARowAControlByteOrAFormula) {
  const batch_plan p = plan(line("a") + line("b") + line("c"));
  std::vector<line_outcome> outcomes(3);
  outcomes[0] = {"script_failed",
                 8,
                 "=cmd|' /C calc'!A0",
                 sandbox::sandbox_usage{-1, NAN, 0, 0, 0},
                 std::string(64, 'a') + "\nz,9,success,0,forged,,,,",
                 "=n1\nrow",
                 "-1,2"};
  outcomes[1] = {"success\nx", -5, "\x1b]0;owned\x07 +1 \r\nrow", std::nullopt, "@SUM(A1)"};
  outcomes[2] = {"success", 0, "-2+3", sandbox::sandbox_usage{1.25, 0.5, 7, 0, 0}, std::string(64, 'F')};
  const std::string csv = render_summary_csv(p, outcomes);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;
  for (const char c : csv) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c <= 0x7e)) << int(c);
  std::size_t rows = 0;
  for (std::size_t start = 0; start < csv.size(); ++rows) {
    const std::size_t end = csv.find('\n', start);
    const std::string row = csv.substr(start, end - start);
    start = end + 1;
    bool quoted = false;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool cell_starts = i == 0 || (row[i - 1] == ',' && !quoted);
      if (row[i] == '"') quoted = !quoted;
      if (cell_starts && std::string_view("=+@-").find(row[i]) != std::string_view::npos)
        ADD_FAILURE() << "a formula cell in: " << row;
    }
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_NE(csv.find("\na,1,script_failed,8,'=cmd|' /C calc'!A0,0.000,,,0,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nb,2,,,\\x1b]0;owned\\x07 +1 \\x0d\\x0arow,,,,,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nc,3,success,0,'-2+3,0.000,1.250,0.500,7,,,,\n"), std::string::npos)
      << "uppercase is not a digest";
  const std::string json = render_summary_json({"m", "s", dir_, "local", {}, {}, {}, {}}, p, outcomes);
  EXPECT_EQ(json.find("forged"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("verdict":"","exit_code":null)"), std::string::npos) << json;
}

}  // namespace
}  // namespace plb::batch
