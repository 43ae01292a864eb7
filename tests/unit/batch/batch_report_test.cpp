// SPDX-License-Identifier: Apache-2.0
// The batch report: every value escaped, every state shown and counted, nothing loaded from
// outside the file, empty, partial, interrupted and 10,000-line rounds, the summary read in any
// pieces and the page handed on a row at a time, and the file written 0600 without replacing
// anything that is not the tool's.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../temp_dir.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "batch/batch_report.hpp"
#include "batch/batch_report_io.hpp"
#include "batch/batch_summary.hpp"
#include "batch_fixture.hpp"
#include "plb/sandbox/verdict.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

const std::string digest(64, 'a');
const std::string hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>&\x1b[31m\xe2\x80\xae";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> all_states() {
  std::vector<std::string> s;
  for (const auto& v : sandbox::verdict_table) s.emplace_back(v.name);
  for (const char* o : {"pending", "running", "interrupted", "not_run"}) s.emplace_back(o);
  return s;
}

report_row row(std::size_t line, const std::string& state) {
  report_row r;
  r.id = "team-" + std::to_string(line);
  r.line = line;
  r.state = state;
  if (state != "pending" && state != "running" && state != "interrupted" && state != "not_run") {
    r.exit_code = state == "success" ? 0 : 5;
    r.wall = 0.25 + static_cast<double>(line % 97) / 10;
    r.cpu = 0.2;
    r.memory_peak = 40 * 1048576 + line;
    r.wall_limit = 30;
    r.memory_limit_mib = 512;
    r.node = "node-1";
  }
  if (state == "success") r.predictions_sha256 = digest, r.provenance = true;
  return r;
}

report_input input_of(std::vector<report_row> rows) {
  report_input in;
  in.output_dir = "/srv/eval/round-7";
  in.manifest = "/srv/eval/round-7.jsonl";
  in.manifest_sha256 = digest;
  in.backend = "local";
  in.complete = true;
  in.started_at = "2026-12-01T10:00:00Z";
  in.finished_at = "2026-12-01T10:05:00Z";
  in.wall_seconds = 300;
  in.runtimes = {"runsc 20240729 on systrap"};
  in.images = {"sha256:" + std::string(64, 'b')};
  in.nodes = {"node-1"};
  in.rows = std::move(rows);
  return in;
}

// What must hold of every page, whatever it shows.
void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.find("://"), std::string::npos);  // no http:, https:, file: or protocol-relative URL
  // No element loads anything: every < and " of a value is escaped, so once the quoted attribute
  // values are set aside, an src= inside a tag would be a real attribute.
  const std::string tags = std::regex_replace(html, std::regex("\"[^\"]*\""), "\"\"");
  EXPECT_FALSE(std::regex_search(tags, std::regex("<[^>]*\\ssrc\\s*=", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(html, std::regex("<[^>]*\\shref\\s*=\\s*\"[^\"]*[:/]", std::regex::icase)));
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("@font-face"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 1u);  // the page's own
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  for (const char c : html) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c <= 0x7e)) << static_cast<int>(c);
}

TEST(BatchReport, EscapesEveryValueWhateverItsSource) {
  report_row r = row(1, "script_failed");
  r.id = hostile;
  r.message = hostile;
  r.node = hostile;
  r.predictions_sha256 = hostile;
  r.provenance = true;
  report_input in = input_of({r});
  in.manifest = in.output_dir = in.backend = in.started_at = hostile;
  in.runtimes = in.images = in.nodes = {hostile};
  in.verify = {{hostile, hostile, 3, 0.5, hostile}};
  in.verify_note = hostile;
  report_row link = row(2, "success");
  link.id = "javascript:alert(3)";
  in.rows.push_back(link);
  const std::string html = render_report(in);
  expect_self_contained(html);
  EXPECT_EQ(html.find("<a href"), std::string::npos);  // neither ID is a manifest ID: no link
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img"), std::string::npos);
  EXPECT_NE(html.find("\\x1b[31m\\xe2\\x80\\xae"), std::string::npos);
  EXPECT_EQ(html_escape("a&b<c>d\"e'f\\"), "a&amp;b&lt;c&gt;d&quot;e&#39;f\\\\");
}

TEST(BatchReport, ShowsAndCountsEveryStateInItsColour) {
  std::vector<report_row> rows;
  const auto states = all_states();
  for (std::size_t i = 0; i < states.size(); ++i) rows.push_back(row(i + 1, states[i]));
  rows.push_back(row(states.size() + 1, "timeout"));
  const std::string html = render_report(input_of(rows));
  expect_self_contained(html);
  for (const auto& s : states) {
    const std::string n = s == "timeout" ? "2" : "1";
    EXPECT_NE(html.find("data-state=\"" + s + "\" data-count=\"" + n + "\""), std::string::npos) << s;
    EXPECT_NE(html.find(".s-" + s + " td.v{color:" + std::string(state_colour(s))), std::string::npos) << s;
    EXPECT_NE(state_colour(s), state_colour(s == "success" ? "timeout" : "success")) << s;
  }
  EXPECT_EQ(count(html, "<tr class=\"s-"), rows.size());
  EXPECT_EQ(count(html, "<a href=\"team-1.csv.sandbox.json\">"), 1u);  // success only
}

TEST(BatchReport, EmptyBatchRendersWithoutFigures) {
  report_input in = input_of({});
  in.runtimes.clear();
  const std::string html = render_report(in);
  expect_self_contained(html);
  EXPECT_EQ(count(html, "no figures yet"), 4u);
  EXPECT_EQ(count(html, "<tr class=\"s-"), 0u);
  EXPECT_NE(html.find("<dd id=\"total\">0 "), std::string::npos);
  EXPECT_NE(html.find("unknown: no line published a provenance"), std::string::npos);
}

TEST(BatchReport, PartialAndInterruptedBatchesSayWhatIsMissing) {
  report_input in = input_of({row(1, "success"), row(2, "interrupted"), row(3, "pending"), row(4, "running")});
  in.complete = false;
  in.finished_at.clear();
  in.wall_seconds.reset();
  const std::string html = render_report(in);
  expect_self_contained(html);
  EXPECT_NE(html.find("incomplete: some lines have no verdict"), std::string::npos);
  EXPECT_NE(html.find("not finished (interrupted, or still running)"), std::string::npos);
  EXPECT_NE(html.find("data-state=\"interrupted\" data-count=\"1\""), std::string::npos);
  EXPECT_NE(html.find("data-state=\"pending\" data-count=\"1\""), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"s-"), 4u);
}

TEST(BatchReport, TenThousandLinesStayUnderTheStatedSize) {
  std::vector<report_row> rows;
  const auto states = all_states();
  for (std::size_t i = 1; i <= 10000; ++i) {
    report_row r = row(i, i % 10 == 0 ? states[i / 10 % states.size()] : "success");
    r.id = "submission-" + std::string(20, 'x') + std::to_string(i);  // longer IDs than most rounds
    r.message = r.state == "success" ? "" : std::string(report_message_bytes + 50, 'm');
    rows.push_back(std::move(r));
  }
  const std::string html = render_report(input_of(rows));
  std::cout << "report of 10,000 lines: " << html.size() << " bytes (bound " << report_bytes_for_10000_lines << ")\n";
  EXPECT_LT(html.size(), report_bytes_for_10000_lines);
  EXPECT_EQ(count(html, "<tr class=\"s-"), 10000u);
  // Charts aggregate: at most report_chart_bars bars per per-line chart, 20 bins x states in the histogram.
  EXPECT_LE(count(html, "<rect"), 3 * report_chart_bars + 20 * states.size());
  EXPECT_NE(html.find("a bar per group of lines"), std::string::npos);
  EXPECT_NE(html.find("P=" + std::to_string(report_page_rows)), std::string::npos);  // the script pages
  EXPECT_EQ(html.find(std::string(report_message_bytes + 1, 'm')), std::string::npos);
}

// A plan of these IDs, on lines 1, 2, ...
batch_plan plan_of(std::initializer_list<std::string> ids) {
  batch_plan plan;
  sandbox::scoring_request r;
  r.runtime_image = "sha256:" + std::string(64, 'b');
  r.limits.wall_seconds = 20;
  r.limits.memory_mib = 256;
  for (const std::string& id : ids) plan.add(plan.size() + 1, id, r);
  return plan;
}

TEST(BatchReport, ReadsTheSummaryTheBatchWrites) {
  std::vector<line_outcome> o(3);
  o[0].state = "success", o[0].exit_code = 0, o[0].predictions_sha256 = digest, o[0].node = "n1";
  o[0].usage = sandbox::sandbox_usage{1.5, 0.5, 1048576, 0, 3};
  o[0].bundle_bytes = 47185920;  // a bundle run's snapshot: its own column
  o[1].state = "timeout", o[1].exit_code = 5, o[1].message = hostile;
  o[2].state = "pending";
  const summary_header h{"/m.jsonl", digest, "/out", "local", "2026-12-01T10:00:00Z", {}, {}};
  const std::string summary = render_summary_json(h, plan_of({"a", "b", "c"}), o);
  const auto provenance = [](const std::string& id) -> std::optional<std::string> {
    if (id == "a") return std::string("not json");
    return std::nullopt;
  };
  report_input in = report_input_from("/out", summary, std::nullopt, provenance);
  ASSERT_EQ(in.rows.size(), 3u);
  EXPECT_EQ(in.rows[0].node, "n1");
  EXPECT_EQ(*in.rows[0].wall_limit, 20u);
  EXPECT_EQ(*in.rows[0].memory_limit_mib, 256u);
  EXPECT_TRUE(in.rows[0].provenance);
  EXPECT_EQ(in.rows[1].state, "timeout");
  EXPECT_FALSE(in.complete);
  EXPECT_TRUE(in.runtimes.empty());  // a provenance that does not read adds nothing
  EXPECT_EQ(in.started_at, "2026-12-01T10:00:00Z");
  const std::string html = render_report(in);
  expect_self_contained(html);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(*in.rows[0].bundle_bytes, 47185920u);
  EXPECT_FALSE(in.rows[1].bundle_bytes);
  EXPECT_NE(html.find("<th class=\"n\">bundle bytes</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">47185920</td>"), std::string::npos);
  in.rows[0].bundle_bytes.reset();  // a round without bundles: no such column
  EXPECT_EQ(render_report(in).find("bundle bytes"), std::string::npos);
}

TEST(BatchReport, RefusesASummaryValueTheToolDoesNotWrite) {
  const auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const std::string head = R"({"schema":"plb-sandbox/batch-summary/1","manifest":"m","manifest_sha256":"x",)"
                           R"("output_dir":"/o","engine":"local","complete":true,"rows":[)";
  const std::string good = R"({"id":"a","line":1,"verdict":"success","exit_code":0,"message":"","wall_seconds":1,)"
                           R"("cpu_seconds":1,"memory_peak_bytes":1,"predictions_sha256":null})";
  EXPECT_EQ(report_input_from("/o", head + good + "]}", std::nullopt, none).rows.size(), 1u);
  const std::pair<std::string, std::string> bad[] = {{"\"verdict\":\"success\"", "rows[0].verdict"},
                                                     {"\"id\":\"a\"", "rows[0].id"},
                                                     {"\"wall_seconds\":1", "rows[0].wall_seconds"},
                                                     {"\"exit_code\":0", "rows[0].exit_code"}};
  const std::string replacement[] = {"\"verdict\":\"<b>won</b>\"", "\"id\":\"../x\"", "\"wall_seconds\":-1",
                                     "\"exit_code\":256"};
  for (std::size_t i = 0; i < std::size(bad); ++i) {
    std::string row = good;
    row.replace(row.find(bad[i].first), bad[i].first.size(), replacement[i]);
    try {
      (void)report_input_from("/o", head + row + "]}", std::nullopt, none);
      ADD_FAILURE() << replacement[i];
    } catch (const failure& f) {
      EXPECT_EQ(f.verdict(), sandbox::verdict::input_refused);
      EXPECT_NE(std::string(f.what()).find("/o/batch-summary.json: " + bad[i].second), std::string::npos) << f.what();
    }
  }
  EXPECT_THROW((void)report_input_from("/o", "[]", std::nullopt, none), failure);
}

TEST(BatchReport, VerifyCsvRoundTripsAndRefusesWhatItDoesNotWrite) {
  const std::vector<report_verify_row> rows{{"a", "reproduced", 0, 0.0, "same, \"bytes\""},
                                            {"b", "differs", 3, 0.125, ""},
                                            {"c", "model_changed", std::nullopt, std::nullopt, "x"}};
  const std::string text = render_verify_csv(rows, "top 3 successes by wall_seconds");
  std::string note;
  const auto back = parse_verify_csv("/o/batch-verify.csv", text, note);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(note, "top 3 successes by wall_seconds");
  EXPECT_EQ(back[0].message, "same; 'bytes'");
  EXPECT_EQ(*back[1].differing_rows, 3u);
  EXPECT_EQ(*back[1].max_abs_difference, 0.125);
  EXPECT_FALSE(back[2].differing_rows);
  for (const std::string& broken : {text + "d,won,1,1,x,y\n", text + "d,differs,1\n", text + "e,differs,-1,1,x,y\n",
                                    std::string("id,result\n"), text.substr(0, text.size() - 1)})
    EXPECT_THROW((void)parse_verify_csv("/o/batch-verify.csv", broken, note), failure) << broken;
}

class ReportDir : public test::temp_dir_test {
 protected:
  ReportDir() : temp_dir_test("plb-report-test") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    std::vector<line_outcome> o(1);
    o[0].state = "script_failed", o[0].exit_code = 8, o[0].message = hostile;
    const summary_header h{"/m.jsonl", digest, dir_, "local", "", {}, {}};
    std::ofstream(dir_ + "/batch-summary.json") << render_summary_json(h, plan_of({"a"}), o);
  }
};

TEST_F(ReportDir, WritesTheReport0600AndReplacesOnlyItsOwnFile) {
  const std::string path = write_batch_report(dir_);
  EXPECT_EQ(path, dir_ + "/batch-report.html");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(write_batch_report(dir_), path);  // its own earlier report is replaced
  std::filesystem::remove(path);
  std::filesystem::create_symlink("/etc/passwd", path);
  EXPECT_THROW((void)write_batch_report(dir_), failure);
  EXPECT_TRUE(std::filesystem::is_symlink(path));
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  EXPECT_THROW((void)write_batch_report(dir_), failure);
  EXPECT_TRUE(std::filesystem::is_directory(path));
}

TEST_F(ReportDir, RefusesADirectoryOthersCanWriteAndALinkedSummary) {
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  EXPECT_THROW((void)write_batch_report(dir_), failure);
  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
  std::filesystem::rename(dir_ + "/batch-summary.json", dir_ + "/real.json");
  std::filesystem::create_symlink(dir_ + "/real.json", dir_ + "/batch-summary.json");
  EXPECT_THROW((void)write_batch_report(dir_), failure);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/batch-report.html"));
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

}  // namespace
}  // namespace plb::batch
