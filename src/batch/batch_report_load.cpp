// SPDX-License-Identifier: Apache-2.0
// The report's values, each checked as it is read from the batch's summary and provenance files:
// a value that is not one the tool writes refuses the whole report, naming the file, row and field.
#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <functional>

#include <boost/json.hpp>

#include "batch/batch_report_io.hpp"
#include "batch/batch_summary.hpp"
#include "batch/batch_summary_events.hpp"
#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/provenance_reader.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

namespace json = boost::json;

class summary_fields {
 public:
  summary_fields(std::string file, std::string where) : file_(std::move(file)), where_(std::move(where)) {}
  [[noreturn]] void refuse(std::string_view key, std::string_view why) const {
    std::string m = file_;
    m.append(": ").append(where_).append(where_.empty() ? "" : ".").append(key).append(": ").append(why);
    fail(sandbox::verdict::input_refused, m);
  }
  const json::value* get(const json::object& o, std::string_view key, bool required) const {
    const auto* v = o.if_contains(json::string_view(key.data(), key.size()));
    if (!v && required) refuse(key, "missing");
    return v && !v->is_null() ? v : nullptr;
  }
  std::string text(const json::object& o, std::string_view key, bool required = true) const {
    const auto* v = get(o, key, required);
    if (!v) return {};
    if (!v->is_string()) refuse(key, "not a string");
    return std::string(v->get_string());
  }
  std::optional<std::uint64_t> count(const json::object& o, std::string_view key, bool required = true) const {
    const auto* v = get(o, key, required);
    if (!v) return std::nullopt;
    if (v->is_uint64()) return v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0) return static_cast<std::uint64_t>(v->get_int64());
    refuse(key, "not a whole number of at least 0");
  }
  std::optional<double> figure(const json::object& o, std::string_view key, bool required = true) const {
    const auto* v = get(o, key, required);
    if (!v) return std::nullopt;
    const double d = v->is_number() ? v->to_number<double>() : -1;
    if (!std::isfinite(d) || d < 0) refuse(key, "not a finite number of at least 0");
    return d;
  }

 private:
  std::string file_, where_;
};

bool is_name(std::string_view s) {
  return !s.empty() && s.size() <= 255 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

report_row row_from(const json::object& o, const summary_fields& f) {
  report_row r;
  r.id = f.text(o, "id");
  if (!sandbox::is_valid_batch_id(r.id)) f.refuse("id", "not a manifest ID");
  r.line = static_cast<std::size_t>(*f.count(o, "line"));
  r.state = f.text(o, "verdict");
  if (summary_state(r.state).empty()) f.refuse("verdict", "not a verdict or line state of this tool");
  if (const auto code = f.count(o, "exit_code")) {
    if (*code > 255) f.refuse("exit_code", "above 255");
    r.exit_code = static_cast<int>(*code);
  }
  r.message = summary_text(f.text(o, "message"));
  r.startup = f.figure(o, "startup_seconds", false);  // none in a summary older than the run's clock
  r.wall = f.figure(o, "wall_seconds");
  r.cpu = f.figure(o, "cpu_seconds");
  r.memory_peak = f.count(o, "memory_peak_bytes");
  r.predictions_sha256 = f.text(o, "predictions_sha256");
  if (!r.predictions_sha256.empty() && !sandbox::parse_sha256_hex(r.predictions_sha256))
    f.refuse("predictions_sha256", "not a SHA-256");
  // Written since the report exists; an older summary has no limits, node or image.
  r.wall_limit = f.count(o, "wall_limit_seconds", false);
  r.memory_limit_mib = f.count(o, "memory_limit_mib", false);
  r.node = f.text(o, "node", false);
  r.bundle_bytes = f.count(o, "bundle_bytes", false);  // since bundles
  if (!r.node.empty() && !is_name(r.node)) f.refuse("node", "not a host name");
  return r;
}

void add_distinct(std::vector<std::string>& values, const std::string& v) {
  if (!v.empty() && std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
}

void read_header(const json::object& doc, const summary_fields& f, report_input& in) {
  if (f.text(doc, "schema") != "plb-sandbox/batch-summary/1") f.refuse("schema", "not a batch summary");
  in.manifest = f.text(doc, "manifest");
  in.manifest_sha256 = f.text(doc, "manifest_sha256");
  in.output_dir = f.text(doc, "output_dir");
  in.backend = f.text(doc, "engine");  // the summary's schema 1 key for the backend
  const auto* complete = f.get(doc, "complete", true);
  if (!complete || !complete->is_bool()) f.refuse("complete", "not true or false");
  in.complete = complete->get_bool();
  in.started_at = summary_text(f.text(doc, "started_at", false));
  in.finished_at = summary_text(f.text(doc, "finished_at", false));
  in.wall_seconds = f.figure(doc, "wall_seconds", false);
}

}  // namespace

report_input report_input_from(const std::string& dir, const summary_reader& read_some,
                               std::optional<std::string_view> verify_csv, const provenance_lookup& provenance,
                               std::size_t rows_at_most) {
  const std::string file = dir + "/batch-summary.json";
  const summary_fields top(file, "");
  report_input in;
  in.rows.reserve(rows_at_most);
  std::size_t index = 0;
  std::exception_ptr first_refusal;  // a row's, raised after the document's and the header's own
  const auto on_row = [&](json::value v) {
    const std::size_t i = index++;
    if (first_refusal) return;
    try {
      const summary_fields f(file, "rows[" + std::to_string(i) + "]");
      if (!v.is_object()) f.refuse("(row)", "not an object");
      report_row r = row_from(v.get_object(), f);
      const std::string image = f.text(v.get_object(), "runtime_image", false);
      if (!image.empty() && !sandbox::parse_image_id(image)) f.refuse("runtime_image", "not an image ID");
      add_distinct(in.images, image);
      add_distinct(in.nodes, r.node);
      if (r.state == "success") {
        if (const auto text = provenance(r.id)) {
          r.provenance = true;
          // A provenance that does not read is linked but adds nothing to the header.
          if (const auto p = sandbox::parse_provenance(*text)) {
            add_distinct(in.runtimes, "runsc " + p.record.runtime_release + " on " + p.record.runtime_platform);
            if (p.record.runtime_image) add_distinct(in.images, p.record.runtime_image->str());
          }
        }
      }
      in.rows.push_back(std::move(r));
    } catch (const failure&) {
      first_refusal = std::current_exception();
    }
  };
  json::parse_options po;
  po.max_depth = 8;
  json::basic_parser<summary_handler> parser(po, on_row);
  json::error_code ec;
  std::array<char, 1 << 16> buf{};
  bool done = false;
  while (!ec && !done) {
    const std::size_t n = read_some(buf.data(), buf.size());
    done = n == 0;
    parser.write_some(!done, buf.data(), n, ec);
  }
  json::value doc = ec ? json::value() : parser.handler().header();
  if (ec || !doc.is_object()) top.refuse("(document)", "not one JSON object");
  read_header(doc.get_object(), top, in);
  if (!parser.handler().rows_were_an_array()) {
    const auto* rows = top.get(doc.get_object(), "rows", true);
    if (!rows || !rows->is_array()) top.refuse("rows", "not an array");
  }
  if (first_refusal) std::rethrow_exception(first_refusal);
  if (verify_csv) in.verify = parse_verify_csv(dir + "/" + verify_csv_name, *verify_csv, in.verify_note);
  return in;
}

report_input report_input_from(const std::string& dir, std::string_view summary_json,
                               std::optional<std::string_view> verify_csv, const provenance_lookup& provenance) {
  std::size_t at = 0;
  const auto read_some = [&](char* out, std::size_t max) {
    const std::size_t n = std::min(max, summary_json.size() - at);
    std::copy_n(summary_json.data() + at, n, out);
    at += n;
    return n;
  };
  return report_input_from(dir, read_some, verify_csv, provenance);
}

}  // namespace plb::batch
