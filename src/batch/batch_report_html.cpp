// SPDX-License-Identifier: Apache-2.0
// The report page: header, charts, the table of lines and the verified lines. Every value goes
// through html_escape; the style and the sorting/paging script are constants of this file.
#include <algorithm>
#include <map>

#include "batch/batch_report.hpp"
#include "batch/batch_report_text.hpp"
#include "plb/sandbox/batch_manifest.hpp"
#include "plb/sandbox/verdict.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

struct state_style {
  std::string_view state, colour;
};
constexpr state_style styles[] = {{"success", "#2e7d32"},
                                  {"usage_error", "#827717"},
                                  {"host_refused", "#00838f"},
                                  {"input_refused", "#f9a825"},
                                  {"timeout", "#ef6c00"},
                                  {"memory_exhausted", "#6a1b9a"},
                                  {"output_cap_exceeded", "#880e4f"},
                                  {"script_failed", "#c62828"},
                                  {"output_rejected", "#e91e63"},
                                  {"cleanup_failed", "#4e342e"},
                                  {"runtime_failed", "#1565c0"},
                                  {"internal_error", "#212121"},
                                  {"pending", "#9e9e9e"},
                                  {"running", "#607d8b"},
                                  {"interrupted", "#795548"},
                                  {"not_run", "#b0bec5"}};

// The whole page's style: no font is loaded (the system's sans-serif), no image, no URL.
constexpr std::string_view style =
    "body{font:14px sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em}table{border-collapse:collapse}"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;white-space:nowrap}th{background:#eee;cursor:pointer}"
    "th[data-dir=asc]::after{content:' \\25B2'}th[data-dir=desc]::after{content:' \\25BC'}"
    "td.n{text-align:right}td.d{max-width:9em;overflow:hidden;text-overflow:ellipsis;font-family:monospace}"
    "td.m{white-space:normal;max-width:28em}.counts li{display:inline-block;margin-right:1em}"
    ".sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-size:.9em}"
    ".axis{stroke:#888}.limit{stroke:#c00;stroke-dasharray:4 3}.tick{font-size:10px;fill:#555}"
    ".note{color:#555}.diag{font-family:monospace;background:#fff3cd;padding:0 "
    ".3em}dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}dd{margin:0}";

// Sorting by any column (numbers by value, blanks last) and paging, for a page that works without it.
constexpr std::string_view script =
    "(function(){var t=document.getElementById('lines');if(!t)return;var b=t.tBodies[0],rows=[].slice.call(b.rows),"
    "P="
    "200"
    ",page=0,nav=document.getElementById('pager'),span=nav.querySelector('span'),hs=t.tHead.rows[0].cells;"
    "function show(){var n=Math.max(1,Math.ceil(rows.length/P));page=Math.min(Math.max(page,0),n-1);"
    "rows.forEach(function(r,i){r.hidden=Math.floor(i/P)!==page;});span.textContent='page '+(page+1)+' of '+n+"
    "' ('+rows.length+' lines)';}function key(r,c,num){var s=r.cells[c].textContent;if(!num)return s;"
    "return s===''?-Infinity:parseFloat(s);}[].forEach.call(hs,function(th,c){th.addEventListener('click',function(){"
    "var num=th.className==='n',dir=th.dataset.dir==='asc'?-1:1;[].forEach.call(hs,function(h){delete h.dataset.dir;});"
    "th.dataset.dir=dir>0?'asc':'desc';rows.sort(function(x,y){var a=key(x,c,num),z=key(y,c,num);"
    "return a<z?-dir:a>z?dir:(+x.dataset.line-+y.dataset.line);});rows.forEach(function(r){b.appendChild(r);});"
    "page=0;show();});});nav.hidden=false;nav.querySelector('.prev').onclick=function(){page--;show();};"
    "nav.querySelector('.next').onclick=function(){page++;show();};show();})();";

constexpr std::string_view verify_head =
    "<table id=\"verify\"><thead><tr><th>ID</th><th>result</th><th class=\"n\">differing rows</th>"
    "<th class=\"n\">largest absolute difference</th><th>message</th></tr></thead><tbody>\n";

constexpr std::string_view intro =
    "</style></head><body><h1>plb-sandbox batch report</h1><p class=\"note\">Local-only, like every output of the "
    "batch: do not publish it or return it to the model submitters. It shows numbers, verdicts, manifest IDs and "
    "the tool's own messages, never the scripts' output.</p>";

constexpr std::string_view lines_head =
    "<h2>Lines</h2><p id=\"pager\" hidden><button class=\"prev\">previous</button> <span></span> "
    "<button class=\"next\">next</button> (sort by clicking a column's title)</p>"
    "<table id=\"lines\"><thead><tr><th>ID</th><th class=\"n\">line</th><th>verdict</th>"
    "<th class=\"n\">exit</th><th>message</th><th class=\"n\">start-up s</th><th class=\"n\">wall s</th>"
    "<th class=\"n\">wall limit s</th>"
    "<th class=\"n\">CPU s</th><th class=\"n\">peak MiB</th><th class=\"n\">memory limit MiB</th>";
// A round with model bundles shows each line's bundle bytes; one without has no such column.
constexpr std::string_view bundle_head = "<th class=\"n\">bundle bytes</th>";
constexpr std::string_view lines_head_end =
    "<th>node</th><th>predictions SHA-256</th><th>provenance</th></tr></thead><tbody>\n";

static_assert(report_page_rows == 200, "the script's page size (P=200) is report_page_rows");

std::string td(std::string_view cls, const std::string& text) {
  return cls.empty() ? cat({"<td>", html_escape(text), "</td>"})
                     : cat({"<td class=\"", cls, "\">", html_escape(text), "</td>"});
}

std::string opt_num(const std::optional<double>& v, int decimals) { return v ? num(*v, decimals) : std::string(); }
std::string opt_int(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string(); }

std::string shortened(const std::string& message) {
  std::string s = one_line(message);
  if (s.size() > report_message_bytes) s.resize(report_message_bytes), s.append("...");
  return s;
}

std::string row_html(const report_row& r, bool bundles) {
  std::string s = cat({"<tr class=\"s-", html_escape(r.state), "\" data-line=\"", std::to_string(r.line), "\">"});
  s += td("", r.id);
  s += td("n", std::to_string(r.line));
  s += td("v", r.state);
  s += td("n", r.exit_code ? std::to_string(*r.exit_code) : std::string());
  s += td("m", shortened(r.message));
  s += td("n", opt_num(r.startup, 3));
  s += td("n", opt_num(r.wall, 3));
  s += td("n", opt_int(r.wall_limit));
  s += td("n", opt_num(r.cpu, 3));
  s += td("n", r.memory_peak ? num(static_cast<double>(*r.memory_peak) / 1048576.0, 1) : std::string());
  s += td("n", opt_int(r.memory_limit_mib));
  if (bundles) s += td("n", opt_int(r.bundle_bytes));
  s += td("", r.node);
  s += td("d", r.predictions_sha256);
  // A link only for a manifest ID ([A-Za-z0-9._-]): never a scheme, a path or a query, whatever the row holds.
  if (r.provenance && sandbox::is_valid_batch_id(r.id)) {
    const std::string href = html_escape(cat({r.id, ".csv.sandbox.json"}));
    s += cat({"<td><a href=\"", href, "\">provenance</a>"});
  } else {
    s += "<td>";
  }
  // The operator's diagnostics file is named, never linked or read: what it holds is not the page's.
  if (r.diagnostics && sandbox::is_valid_batch_id(r.id))
    s += cat({r.provenance ? " " : "",
              "<span class=\"diag\" title=\"the script's stderr tail, for the operator only: "
              "review it before passing anything of it on\">",
              html_escape(cat({r.id, ".stderr"})), "</span>"});
  return s.append("</td></tr>\n");
}

std::string joined(const std::vector<std::string>& values, std::string_view none) {
  if (values.empty()) return std::string(none);
  std::string s;
  for (const auto& v : values) s.append(s.empty() ? "" : ", ").append(v);
  return s;
}

std::string header_html(const report_input& in) {
  std::map<std::string, std::size_t> counts;
  for (const auto& r : in.rows) ++counts[r.state];
  std::string s = "<ul class=\"counts\" id=\"counts\">";
  for (const auto& st : styles)
    if (const auto it = counts.find(std::string(st.state)); it != counts.end())
      s += cat({"<li data-state=\"", st.state, "\" data-count=\"", std::to_string(it->second),
                "\"><span class=\"sw\" style=\"background:", st.colour, "\"></span>", st.state, ": <b>",
                std::to_string(it->second), "</b></li>"});
  s += cat({"</ul><dl><dt>lines</dt><dd id=\"total\">", std::to_string(in.rows.size()),
            in.complete ? " (every line reached a verdict)" : " (incomplete: some lines have no verdict)", "</dd>"});
  const std::pair<const char*, std::string> facts[] = {
      {"runtime", joined(in.runtimes, "unknown: no line published a provenance")},
      {"runtime image", joined(in.images, "unknown")},
      {"host or nodes", joined(in.nodes, "unknown")},
      {"backend", in.backend},
      {"started", in.started_at.empty() ? "unknown" : in.started_at},
      {"finished", in.finished_at.empty() ? "not finished (interrupted, or still running)" : in.finished_at},
      {"total wall time", in.wall_seconds ? cat({num(*in.wall_seconds, 1), " s"}) : std::string("unknown")},
      {"manifest", cat({in.manifest, " (SHA-256 ", in.manifest_sha256, ")"})},
      {"output directory", in.output_dir}};
  for (const auto& [name, value] : facts) s += cat({"<dt>", name, "</dt><dd>", html_escape(value), "</dd>"});
  return s.append("</dl>");
}

std::string verify_html(const report_input& in) {
  if (in.verify.empty()) return {};
  std::string s = cat({"<h2>Re-runs (", html_escape(verify_csv_name), ")</h2><p class=\"note\">",
                       html_escape(in.verify_note), "</p>", verify_head});
  for (const auto& v : in.verify)
    s += cat({"<tr class=\"r-", html_escape(v.result), "\">", td("", v.id), td("v", v.result),
              td("n", opt_int(v.differing_rows)), td("n", v.max_abs_difference ? num(*v.max_abs_difference, 6) : ""),
              td("m", shortened(v.message)), "</tr>\n"});
  return s.append("</tbody></table>");
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : one_line(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view state_colour(std::string_view state) {
  for (const auto& s : styles)
    if (s.state == state) return s.colour;
  return "#9e9e9e";
}

void render_report(const report_input& in, const std::function<void(std::string_view)>& sink) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'\"><meta name=\"referrer\" content=\"no-referrer\">"
      "<title>plb-sandbox batch report</title><style>";
  s.append(style);
  for (const auto& st : styles) s += cat({".s-", st.state, " td.v{color:", st.colour, ";font-weight:bold}"});
  const bool bundles = std::any_of(in.rows.begin(), in.rows.end(), [](const report_row& r) { return r.bundle_bytes; });
  s += cat({intro, header_html(in), render_charts(in), verify_html(in), lines_head,
            bundles ? bundle_head : std::string_view(), lines_head_end});
  sink(s);
  for (const auto& r : in.rows) sink(row_html(r, bundles));
  s = "</tbody></table><script>";
  s.append(script);
  sink(s.append("</script></body></html>\n"));
}

std::string render_report(const report_input& in) {
  std::string out;
  render_report(in, [&](std::string_view piece) { out.append(piece); });
  return out;
}

}  // namespace plb::batch
