// SPDX-License-Identifier: Apache-2.0
// What keeps a batch of 100,000 lines within the submitter's memory bound, each checked by what it
// holds rather than by a clock or the process's RSS: the plan keeps one compact row per line and
// rebuilds each line's request exactly; the outcomes keep a row per line and each distinct string
// once; the summary is handed to its file a row at a time, the same bytes as the whole document;
// and a replaced file is either the old one or the new one, never a part.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/batch_report.hpp"
#include "batch/batch_report_io.hpp"
#include "batch/batch_summary.hpp"
#include "batch_fixture.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

namespace json = boost::json;
constexpr std::size_t many = 10'000;

class BatchScale : public BatchDir {
 protected:
  // `many` lines with long model paths that share their image, data, features and limits.
  batch_plan big_plan() {
    std::string manifest;
    for (std::size_t i = 0; i < many; ++i)
      manifest += R"({"id": "line-)" + std::to_string(i) + R"(", "model": "submissions/team-)" + std::to_string(i) +
                  R"(/model.py", "model_sha256": ")" + hex64 + "\"}\n";
    write("manifest.jsonl", manifest);
    return plan_batch(config());
  }
};

TEST_F(BatchScale, PlanKeepsOneCompactRowPerLine) {
  const batch_plan plan = big_plan();
  ASSERT_EQ(plan.size(), many);
  // Each line's own text (its ID, model path and digest) once, a row, and its place in the ID index;
  // everything the lines share once for the whole plan.
  std::size_t own_text = 0;
  for (std::size_t i = 0; i < many; ++i) {
    const batch_item item = plan.item(i);
    own_text += item.id.size() + item.request.model_path.size() + item.request.model_sha256.size();
  }
  EXPECT_LE(sizeof(batch_plan::row), 48u);
  EXPECT_LE(plan.memory_bytes(), own_text + many * (sizeof(batch_plan::row) + 4) + 16384)
      << "a line's shared values (image, data, features, ID column, limits, output directory) are held once";
  EXPECT_EQ(plan.data_files().size(), 1u);
}

TEST_F(BatchScale, PlanRebuildsEachLineExactlyAsItWasChecked) {
  write("manifest.jsonl", line("a") +
                              line("b", R"(, "data": "sub/d.csv", "features": ["x", "y"], "seconds": 9, )"
                                        R"("memory_mb": 300, "task_type": "binary-classification", "id_column": "k", )"
                                        R"("runtime_image": "sha256:)" +
                                            std::string(64, 'c') + "\"") +
                              line("c"));
  const batch_plan plan = plan_batch(config());
  ASSERT_EQ(plan.size(), 3u);
  const batch_item b = plan.item(1);
  EXPECT_EQ(b.index, 1u);
  EXPECT_EQ(b.line, 2u);
  EXPECT_EQ(b.id, "b");
  EXPECT_EQ(b.request.model_path, dir_ + "/m.py");
  EXPECT_EQ(b.request.model_sha256, hex64);
  EXPECT_EQ(b.request.runtime_image, "sha256:" + std::string(64, 'c'));
  EXPECT_EQ(b.request.data_path, dir_ + "/sub/d.csv");
  EXPECT_EQ(b.request.features, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.request.id_column, "k");
  EXPECT_EQ(b.request.task, sandbox::task_type::binary_classification);
  EXPECT_EQ(b.request.output_path, dir_ + "/b.csv");
  sandbox::SandboxLimits limits;
  limits.wall_seconds = 9;
  limits.memory_mib = 300;
  EXPECT_EQ(b.request.limits, limits);
  // The lines around it keep the defaults: nothing of b's leaks into a shared entry.
  for (const std::size_t i : {0u, 2u}) {
    const batch_item o = plan.item(i);
    EXPECT_EQ(o.request.runtime_image, image);
    EXPECT_EQ(o.request.data_path, dir_ + "/in.csv");
    EXPECT_EQ(o.request.features, std::vector<std::string>{"a"});
    EXPECT_EQ(o.request.limits, sandbox::SandboxLimits{});
    EXPECT_EQ(o.request.task, sandbox::task_type::regression);
    EXPECT_EQ(o.request.output_path, dir_ + "/" + o.id + ".csv");
  }
  EXPECT_EQ(plan.data_files().size(), 2u);
  EXPECT_EQ(plan.data_index(0), plan.data_index(2));
  EXPECT_EQ(plan.find("c"), std::optional<std::size_t>(2));
  EXPECT_EQ(plan.find("d"), std::nullopt);
}

// Read a line at a time, the manifest is refused as the core's parser refuses it whole.
TEST_F(BatchScale, PlanRefusesAsTheWholeManifestParserDoes) {
  const auto refused = [&](const std::string& manifest) {
    write("manifest.jsonl", manifest);
    try {
      (void)plan_batch(config());
    } catch (const failure& f) {
      return std::string(f.what());
    }
    return std::string("accepted");
  };
  const std::string at = "--manifest " + dir_ + "/manifest.jsonl: ";
  EXPECT_EQ(refused(line("a") + "\n" + line("b")), at + "line 2: an empty line (only the last line may be empty)");
  EXPECT_EQ(refused(line("a") + " \t\r\n"), at + "line 2: an empty line (only the last line may be empty)");
  EXPECT_EQ(refused(""), at + "the manifest has no lines");
  EXPECT_EQ(refused(line("a") + line("b") + line("a") + line("b")),
            at + "line 3 (id): the ID was already used on an earlier line");
  // A broken line after a duplicate is what the whole-manifest parser names first.
  EXPECT_NE(refused(line("a") + line("a") + "{\n").find("line 3, column"), std::string::npos);
  EXPECT_EQ(refused(line("a") + line("b")), "accepted");
}

TEST(OutcomeList, KeepsARowPerLineAndEachDistinctStringOnce) {
  outcome_list list(many);
  const line_outcome failed{"input_refused", 3, std::string(200, 'm'), std::nullopt, "", "node-1", "local"};
  for (std::size_t i = 0; i < many; ++i) list.set(i, failed);
  EXPECT_LE(sizeof(outcome_list::row), 80u);  // the usage's six figures, start-up included, are most of it
  EXPECT_LE(list.memory_bytes(), many * sizeof(outcome_list::row) + 4096) << "one message, however many lines";
  const line_outcome ok{"success", 0, "", sandbox::sandbox_usage{1.5, 0.25, 1024, 7, 3}, hex64, "n2", "7_1"};
  list.set(7, ok);
  const line_outcome back = list[7];
  EXPECT_EQ(back.state, "success");
  EXPECT_EQ(back.exit_code, 0);
  ASSERT_TRUE(back.usage);
  EXPECT_EQ(back.usage->wall_seconds, 1.5);
  EXPECT_EQ(back.usage->output_bytes, 7u);
  EXPECT_EQ(back.predictions_sha256, hex64);
  EXPECT_EQ(back.worker, "7_1");
  EXPECT_EQ(list[8].message, failed.message);
  EXPECT_FALSE(list[8].usage);
  list.set_state(8, "running");
  EXPECT_EQ(list.state(8), "running");
  EXPECT_EQ(list[8].message, failed.message);
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

// The report reads the summary a buffer at a time: however the bytes are cut (mid-key, mid-string,
// mid-number) it reads the same rows, and it hands its page on a row at a time.
TEST_F(BatchScale, ReportReadsTheSummaryInPiecesAndWritesItARowAtATime) {
  const batch_plan plan = big_plan();
  outcome_list outcomes(many);
  for (std::size_t i = 0; i < many; ++i)
    outcomes.set(
        i, i % 2 == 0
               ? line_outcome{"success", 0, "", sandbox::sandbox_usage{0.5 + static_cast<double>(i), 0.25, i, 0, 0},
                              hex64, "n1", "7_0"}
               : line_outcome{"script_failed", 8, "exit \"8\", see stderr", std::nullopt, "", "n2", "7_1"});
  const std::string summary =
      render_summary_json({"/m.jsonl", hex64, dir_, "slurm", "2026-12-01T10:00:00Z", {}, 2.5, {}}, plan, outcomes);
  const auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const report_input whole = report_input_from(dir_, summary, std::nullopt, none);
  ASSERT_EQ(whole.rows.size(), many);
  const std::string page = render_report(whole);
  for (const std::size_t cut : {std::size_t{3}, std::size_t{1000}}) {
    std::size_t at = 0, largest = 0;
    const summary_reader read_some = [&](char* out, std::size_t max) {
      const std::size_t n = std::min({max, cut, summary.size() - at});
      largest = std::max(largest, n);
      std::copy_n(summary.data() + at, n, out);
      at += n;
      return n;
    };
    EXPECT_EQ(render_report(report_input_from(dir_, read_some, std::nullopt, none)), page) << "cut every " << cut;
  }
  std::size_t pieces = 0, biggest = 0;
  render_report(whole, [&](std::string_view piece) {
    ++pieces;
    if (pieces > 1 && pieces < many + 2) biggest = std::max(biggest, piece.size());
  });
  EXPECT_EQ(pieces, many + 2) << "the head, a piece per row, the end";
  EXPECT_LT(biggest, 2048u);
  // A row the tool does not write is refused only after the document itself: a broken document says so.
  std::string broken = summary;
  const std::string verdict = R"("verdict":"script_failed")";
  broken.replace(broken.find(verdict), verdict.size(), R"("verdict":"<b>won</b>")");
  try {
    (void)report_input_from(dir_, broken.substr(0, broken.size() - 3), std::nullopt, none);
    ADD_FAILURE() << "a broken document was read";
  } catch (const failure& f) {
    EXPECT_NE(std::string(f.what()).find("(document): not one JSON object"), std::string::npos) << f.what();
  }
  try {
    (void)report_input_from(dir_, broken, std::nullopt, none);
    ADD_FAILURE() << "a row the tool does not write was read";
  } catch (const failure& f) {
    EXPECT_NE(std::string(f.what()).find("rows[1].verdict"), std::string::npos) << f.what();
  }
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

}  // namespace
}  // namespace plb::batch
