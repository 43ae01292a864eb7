// SPDX-License-Identifier: Apache-2.0
// The report's pictures: inline SVG, drawn from the rows' figures alone, readable without script.
// Past report_chart_bars lines the per-line charts aggregate consecutive lines into one bar each.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "batch/batch_report.hpp"
#include "batch/batch_report_text.hpp"

namespace plb::batch {
namespace {

constexpr double chart_width = 640, max_bar = 40, chart_height = 150, left = 44, top = 8;
constexpr std::size_t histogram_bins = 20;

struct bar {
  double value = 0;
  std::string state;
  std::string tip;
};

// One bar per line, or per group of lines past report_chart_bars: the group's highest value,
// coloured by its first failure (else success).
template <typename Value>
std::vector<bar> bars_of(const std::vector<report_row>& rows, Value value, std::string_view unit) {
  std::vector<const report_row*> shown;
  for (const auto& r : rows)
    if (value(r)) shown.push_back(&r);
  const std::size_t group = std::max<std::size_t>(1, (shown.size() + report_chart_bars - 1) / report_chart_bars);
  std::vector<bar> out;
  for (std::size_t i = 0; i < shown.size(); i += group) {
    const std::size_t end = std::min(shown.size(), i + group);
    bar b;
    b.state = "success";
    for (std::size_t k = i; k < end; ++k) {
      b.value = std::max(b.value, *value(*shown[k]));
      if (b.state == "success" && shown[k]->state != "success") b.state = shown[k]->state;
    }
    if (group == 1)
      b.tip = cat({shown[i]->id, " (", shown[i]->state, "): ", num(b.value, 2), unit});
    else
      b.tip = cat({"lines ", std::to_string(shown[i]->line), "-", std::to_string(shown[end - 1]->line), " (",
                   std::to_string(end - i), " runs): highest ", num(b.value, 2), unit});
    out.push_back(std::move(b));
  }
  return out;
}

std::string svg_open(const std::string& label) {
  const std::string h = num(chart_height + 24, 0), w = num(chart_width, 0);
  return cat({"<figure><figcaption>", html_escape(label),
              "</figcaption><svg class=\"chart\" role=\"img\" aria-label=\"", html_escape(label), "\" viewBox=\"0 0 ",
              w, " ", h, "\" width=\"", w, "\" height=\"", h, "\">"});
}

std::string empty_chart(std::string s) {
  return s.append("<text x=\"50\" y=\"80\" class=\"tick\">no figures yet</text></svg></figure>");
}

// Digits after the point that show `step`'s multiples exactly (0.25 needs 2).
int decimals_of(double step) {
  for (int d = 0; d < 3; ++d)
    if (std::fabs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) < 1e-6) return d;
  return 3;
}

std::string axis(const chart_scale& scale, std::string_view unit) {
  const std::string base = num(top + chart_height, 0);
  std::string s = cat({"<line x1=\"", num(left, 0), "\" y1=\"", base, "\" x2=\"", num(chart_width, 0), "\" y2=\"", base,
                       "\" class=\"axis\"/>"});
  const int steps = static_cast<int>(std::lround(scale.top / scale.step)), decimals = decimals_of(scale.step);
  for (int k = 0; k <= steps; ++k) {
    const double y = top + chart_height - chart_height * k / static_cast<double>(steps);
    s += cat({"<text x=\"2\" y=\"", num(y + 4, 0), "\" class=\"tick\">",
              html_escape(cat({num(scale.step * k, decimals), unit})), "</text>"});
  }
  return s;
}

std::string rect(double x, double y, double w, double h, std::string_view state, const std::string& tip) {
  return cat({"<rect x=\"", num(x, 2), "\" y=\"", num(y, 2), "\" width=\"", num(std::max(w, 0.5), 2), "\" height=\"",
              num(h, 2), "\" fill=\"", state_colour(state), "\"><title>", html_escape(tip), "</title></rect>"});
}

// The lines' limit: their common one, or the lowest where they differ (`differ` says so).
struct chart_limit {
  std::optional<double> value;
  bool differ = false;
};
std::string bar_chart(const std::string& label, const std::vector<bar>& bars, std::string_view unit,
                      const chart_limit& limits = {}) {
  const std::optional<double> limit = limits.value;
  const std::string_view which = limits.differ ? "the lowest of the lines' limits, " : "the limit, ";
  double highest = 0;
  for (const auto& b : bars) highest = std::max(highest, b.value);
  const chart_scale scale = choose_scale(highest, limit);
  std::string caption = label;
  if (limit && scale.limit_in_range) caption += cat({"; the dashed line is ", which, num(*limit, 0), unit});
  if (limit && !scale.limit_in_range)
    caption += cat({"; ", which, num(*limit, 0), unit, ", is off this scale (the highest is ",
                    num(highest, decimals_of(scale.step) + 1), unit, ")"});
  std::string s = svg_open(caption);
  if (bars.empty()) return empty_chart(std::move(s));
  s += axis(scale, unit);
  const double w = std::min(max_bar, (chart_width - left) / static_cast<double>(bars.size()));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double h = std::min(bars[i].value, scale.top) / scale.top * chart_height;
    s += rect(left + w * static_cast<double>(i), top + chart_height - h, w - 1, h, bars[i].state, bars[i].tip);
  }
  if (limit && scale.limit_in_range) {
    const std::string y = num(top + chart_height - std::min(*limit, scale.top) / scale.top * chart_height, 2);
    s += cat({"<line x1=\"", num(left, 0), "\" y1=\"", y, "\" x2=\"", num(chart_width, 0), "\" y2=\"", y,
              "\" class=\"limit\"><title>", html_escape(cat({"limit ", num(*limit, 0), unit})), "</title></line>"});
  }
  return s.append("</svg></figure>");
}

using bins_type = std::vector<std::vector<std::pair<std::string, std::size_t>>>;

bins_type bin_walls(const std::vector<report_row>& rows, double hi) {
  bins_type bins(histogram_bins);
  for (const auto& r : rows) {
    if (!r.wall) continue;
    const auto k = std::min(histogram_bins - 1, static_cast<std::size_t>(*r.wall / hi * histogram_bins));
    auto& bin = bins[k];
    auto it = std::find_if(bin.begin(), bin.end(), [&](const auto& p) { return p.first == r.state; });
    if (it == bin.end()) it = bin.emplace(bin.end(), r.state, 0);
    ++it->second;
  }
  return bins;
}

std::string histogram(const std::vector<report_row>& rows) {
  double hi = 0;
  for (const auto& r : rows)
    if (r.wall) hi = std::max(hi, *r.wall);
  std::string s = svg_open(
      "the scripts' own run times (wall seconds, from each container's start) of every line, "
      "stacked by verdict");
  if (hi <= 0) return empty_chart(std::move(s));
  const bins_type bins = bin_walls(rows, hi);
  std::size_t tallest = 1;
  for (const auto& bin : bins) {
    std::size_t n = 0;
    for (const auto& p : bin) n += p.second;
    tallest = std::max(tallest, n);
  }
  s += axis(chart_scale{static_cast<double>(tallest), static_cast<double>(tallest) / 2, false}, "");
  const double w = (chart_width - left) / histogram_bins, step = hi / histogram_bins;
  for (std::size_t k = 0; k < histogram_bins; ++k) {
    double y = top + chart_height;
    const double from = step * static_cast<double>(k);
    for (const auto& [state, n] : bins[k]) {
      const double h = static_cast<double>(n) / static_cast<double>(tallest) * chart_height;
      y -= h;
      s += rect(left + w * static_cast<double>(k), y, w - 1, h, state,
                cat({num(from, 2), "-", num(from + step, 2), " s: ", std::to_string(n), " ", state}));
    }
  }
  const std::string below = num(top + chart_height + 14, 0);
  return s.append(
      cat({"<text x=\"", num(left, 0), "\" y=\"", below, "\" class=\"tick\">0 s</text><text x=\"",
           num(chart_width - 60, 0), "\" y=\"", below, "\" class=\"tick\">", num(hi, 2), " s</text></svg></figure>"}));
}

chart_limit limit_of(const std::vector<report_row>& rows, std::optional<std::uint64_t> report_row::*field) {
  chart_limit l;
  for (const auto& r : rows) {
    if (!(r.*field) || *(r.*field) == 0) continue;
    const auto v = static_cast<double>(*(r.*field));
    l.differ |= l.value && *l.value != v;
    l.value = std::min(l.value.value_or(v), v);
  }
  return l;
}

}  // namespace

chart_scale choose_scale(double highest, std::optional<double> limit) {
  if (!std::isfinite(highest) || highest < 0) highest = 0;
  chart_scale scale;
  scale.limit_in_range = limit && std::isfinite(*limit) && *limit > 0 && highest >= *limit / 2;
  const double reach = std::max(scale.limit_in_range ? std::max(highest, *limit) : highest, 1e-3) * 1.05;
  // The smallest of 1, 2, 2.5 and 5 times a power of ten that covers the reach in at most 4 steps.
  const double power = std::pow(10.0, std::floor(std::log10(reach / 4)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    scale.step = m * power;
    if (scale.step * 4 >= reach) break;
  }
  scale.top = std::ceil(reach / scale.step - 1e-9) * scale.step;
  return scale;
}

std::string render_charts(const report_input& in) {
  const auto wall = [](const report_row& r) { return r.wall; };
  const auto cpu = [](const report_row& r) { return r.cpu; };
  const auto memory = [](const report_row& r) -> std::optional<double> {
    if (!r.memory_peak) return std::nullopt;
    return static_cast<double>(*r.memory_peak) / 1048576.0;
  };
  const auto walls = bars_of(in.rows, wall, " s");
  const auto cpus = bars_of(in.rows, cpu, " s of CPU");
  const auto memories = bars_of(in.rows, memory, " MiB");
  const std::string per =
      in.rows.size() > report_chart_bars ? ", a bar per group of lines (its highest)" : ", a bar per submission";
  std::string s = "<section class=\"charts\">";
  s += bar_chart(cat({"the script's own wall time (s)", per}), walls, " s", limit_of(in.rows, &report_row::wall_limit));
  s += bar_chart(cat({"CPU time (s)", per}), cpus, " s");
  s += bar_chart(cat({"peak memory (MiB)", per}), memories, " MiB", limit_of(in.rows, &report_row::memory_limit_mib));
  s += histogram(in.rows);
  return s.append("</section>");
}

}  // namespace plb::batch
