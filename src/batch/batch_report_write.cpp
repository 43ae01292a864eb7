// SPDX-License-Identifier: Apache-2.0
// batch-verify.csv both ways, and the report read from and written into the batch's directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "batch/batch_report_io.hpp"
#include "batch/batch_report_text.hpp"
#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/provenance_reader.hpp"
#include "plb/sandbox/verdict.hpp"
#include "runner/for_batch.hpp"
#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

constexpr std::string_view verify_header = "id,result,differing_rows,max_abs_difference,selected_by,message";

std::string csv_safe(const std::string& text) {
  std::string s = one_line(text);
  for (char& c : s)
    if (c == ',')
      c = ';';
    else if (c == '"')
      c = '\'';
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t comma = line.find(',', at);
    out.push_back(line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

report_verify_row verify_row(const std::string& where, std::string_view line, std::string& note) {
  const auto f = split(line);
  const auto refuse = [&](std::string_view why) { fail(sandbox::verdict::input_refused, cat({where, ": ", why})); };
  if (f.size() != 6) refuse("not 6 fields");
  report_verify_row r;
  r.id = std::string(f[0]);
  if (!sandbox::is_valid_batch_id(r.id)) refuse("id: not a manifest ID");
  r.result = std::string(f[1]);
  if (!is_verify_result(r.result)) refuse("result: not a result of verify");
  if (!f[2].empty()) {
    std::uint64_t n = 0;
    const auto [p, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), n);
    if (ec != std::errc() || p != f[2].data() + f[2].size()) refuse("differing_rows: not a whole number");
    r.differing_rows = n;
  }
  if (!f[3].empty()) {
    double d = 0;
    const auto [p, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), d);
    if (ec != std::errc() || p != f[3].data() + f[3].size() || !std::isfinite(d) || d < 0)
      refuse("max_abs_difference: not a finite number of at least 0");
    r.max_abs_difference = d;
  }
  if (note.empty()) note = one_line(f[4]);
  r.message = one_line(f[5]);
  return r;
}

}  // namespace

bool is_verify_result(std::string_view result) {
  if (result == "reproduced" || result == "differs") return true;
  for (const auto& m : verify_mismatch_table)
    if (m.name == result) return true;
  for (const auto& v : sandbox::verdict_table)
    if (v.name == result) return true;
  return false;
}

std::string render_verify_csv(const std::vector<report_verify_row>& rows, const std::string& selected_by) {
  std::string out(verify_header);
  out += '\n';
  for (const auto& r : rows) {
    out += cat({r.id, ",", r.result, ",", r.differing_rows ? std::to_string(*r.differing_rows) : "", ","});
    if (r.max_abs_difference) {
      char buf[64];
      const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, *r.max_abs_difference);
      if (ec == std::errc()) out.append(buf, p);
    }
    out += cat({",", csv_safe(selected_by), ",", csv_safe(r.message), "\n"});
  }
  return out;
}

std::vector<report_verify_row> parse_verify_csv(const std::string& path, std::string_view text, std::string& note) {
  std::vector<report_verify_row> rows;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) fail(sandbox::verdict::input_refused, path + ": the last line has no newline");
    const std::string_view line = text.substr(at, end - at);
    ++number;
    at = end + 1;
    if (number == 1) {
      if (line != verify_header)
        fail(sandbox::verdict::input_refused, path + ": line 1: not the header of batch-verify.csv");
      continue;
    }
    rows.push_back(verify_row(path + ": line " + std::to_string(number), line, note));
  }
  if (number == 0) fail(sandbox::verdict::input_refused, path + ": empty");
  return rows;
}

std::string write_batch_report(const std::string& dir) {
  const uid_t owner = ::geteuid();
  const unique_fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd)
    fail(sandbox::verdict::usage_error,
         cat({dir, ": ",
              errno == ENOTDIR || errno == ELOOP ? "not a directory (symlinks are refused)" : std::strerror(errno)}));
  if (const auto checked = check_private_dir(fd.get(), dir, owner); !checked)
    fail(sandbox::verdict::usage_error, cat({dir, ": ", checked.error().what}));
  const auto read = [&](const std::string& name, std::size_t max, bool required) -> std::optional<std::string> {
    if (!required && probe_entry(fd.get(), name, owner).kind == entry_kind::absent) return std::nullopt;
    auto text = read_own_file(fd.get(), name, owner, max);
    if (!text) fail(sandbox::verdict::input_refused, cat({dir, "/", name, ": ", text.error().what}));
    return std::move(*text);
  };
  // The summary is read a buffer at a time (it is 40 MB for 100,000 lines), within the same bound.
  const auto summary = open_own_file(fd.get(), "batch-summary.json", owner);
  if (!summary) fail(sandbox::verdict::input_refused, cat({dir, "/batch-summary.json: ", summary.error().what}));
  std::size_t summary_bytes = 0;
  const auto read_some = [&](char* buf, std::size_t max) -> std::size_t {
    while (true) {
      const ssize_t n = ::read(summary->get(), buf, max);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        fail(sandbox::verdict::input_refused,
             cat({dir, "/batch-summary.json: cannot be read: ", std::strerror(errno)}));
      summary_bytes += static_cast<std::size_t>(n);
      if (summary_bytes > max_summary_bytes)
        fail(sandbox::verdict::input_refused,
             cat({dir, "/batch-summary.json: larger than ", std::to_string(max_summary_bytes), " bytes"}));
      return static_cast<std::size_t>(n);
    }
  };
  const auto verify = read(verify_csv_name, max_summary_bytes, false);
  const auto provenance = [&](const std::string& id) -> std::optional<std::string> {
    const std::string name = id + ".csv.sandbox.json";
    if (probe_entry(fd.get(), name, owner).kind != entry_kind::own_file) return std::nullopt;
    auto text = read_own_file(fd.get(), name, owner, sandbox::max_provenance_bytes);
    return text ? std::optional<std::string>(std::move(*text)) : std::nullopt;
  };
  // A row of the summary is at least 200 bytes (its fourteen keys alone): room for every row it can hold.
  struct stat st {};
  const std::size_t rows_at_most =
      ::fstat(summary->get(), &st) == 0
          ? std::min<std::size_t>(static_cast<std::size_t>(st.st_size), max_summary_bytes) / 200
          : 0;
  report_input input = report_input_from(dir, read_some, verify, provenance, rows_at_most);
  // A line's diagnostics file is named on the page, never read: its presence is all the report says.
  for (report_row& r : input.rows)
    r.diagnostics = probe_entry(fd.get(), cat({r.id, ".stderr"}), owner).kind == entry_kind::own_file;
  // Replaced when it is the tool's own file; anything else at the name stays as it is.
  if (const auto e = probe_entry(fd.get(), report_name, owner); e.kind == entry_kind::other)
    fail(sandbox::verdict::usage_error,
         cat({dir, "/", report_name, ": ", e.what,
              "; the report is only written over a regular file of this user: move it away"}));
  file_replacement html(fd.get(), dir, report_name);  // streamed: the page of 100,000 rows is never held whole
  render_report(input, [&](std::string_view piece) { html.append(piece); });
  html.commit();
  return cat({dir, "/", report_name});
}

}  // namespace plb::batch
