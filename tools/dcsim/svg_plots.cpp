#include "tools/dcsim/svg_plots.hpp"

#include "tools/dcsim/svg_axis.hpp"
#include "tools/dcsim/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace dcsim::tools::svg {

namespace {

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string data_num(double v) {
  return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string("nan");
}

std::string svg_open(const std::string& id, const std::string& title, int width, int height,
                     const std::string& css = "chart") {
  return fmt::format("<svg class=\"{}\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                     "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\n",
                     css, escape(id), width, height, width, height, escape(title));
}

/// The frame, horizontal grid lines and y tick labels of a plot area (tick labels carry data-value).
std::string y_grid(const NumericAxis& a, double left, double top, double w, double h) {
  auto py = [&](double y) { return top + h - a.fraction(y) * h; };
  std::string out = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"plot\"/>\n",
                                num(left), num(top), num(w), num(h));
  for (double t : a.ticks)
    out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/><text x=\"{3}\" "
                       "y=\"{4}\" class=\"ytick\" data-value=\"{6}\" data-pos=\"{2}\">{5}</text>\n",
                       num(left), num(left + w), num(py(t)), num(left - 4), num(py(t) + 4), tick_label(t),
                       data_num(t));
  return out;
}

/// Tick marks and labels under a numeric x axis (labels carry data-value and the mark's position).
std::string x_ticks(const NumericAxis& a, double left, double top, double w, double h) {
  std::string out;
  for (double t : a.ticks) {
    const double x = left + a.fraction(t) * w;
    out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/><text x=\"{0}\" "
                       "y=\"{3}\" class=\"xtick\" data-value=\"{4}\" data-pos=\"{0}\">{5}</text>\n",
                       num(x), num(top), num(top + h), num(top + h + 14), data_num(t), tick_label(t));
  }
  return out;
}

/// A numeric axis over values: log when asked and possible, else linear.
NumericAxis axis_over(double lo, double hi, bool log, int target) {
  if (log && lo > 0 && hi >= lo) return log_axis(lo, hi);
  return linear_axis(lo, hi, target);
}

std::string y_title(const std::string& label, double top, double h) {
  return fmt::format(
      "<text x=\"12\" y=\"{0}\" class=\"ylabel\" transform=\"rotate(-90 12 {0})\">{1}</text>\n",
      num(top + h / 2), escape(label));
}

/// Legend rows under a chart: one swatch and name per series, as many per row as fit.
std::string legend_rows(const std::vector<std::string>& names, double left, double y, int width, int& rows) {
  std::string out;
  double x = left;
  rows = names.empty() ? 0 : 1;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const double item = 24 + 6.5 * static_cast<double>(names[k].size());
    if (x > left && x + item > width) x = left, ++rows, y += 16;
    out +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                    "class=\"legend\">{}</text>\n",
                    num(x), num(y - 5), palette(k), num(x + 16), num(y), escape(names[k]));
    x += item;
  }
  return out;
}

/// Light yellow to dark blue (viridis-like), t in [0, 1].
std::string scale_colour(double t) {
  static const int stops[5][3] = {{253, 231, 37}, {94, 201, 98}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

} // namespace

namespace {

/// One series' marks: a line joining its means (several series), each mean a dot with its interval,
/// clipped to the chart's y range (a clipped end is flagged data-clipped and drawn without its cap).
std::string interval_series(const IntervalChart& c, std::size_t k, const std::function<double(std::size_t)>& px,
                            const std::function<double(double)>& py) {
  const auto& s = c.series[k];
  const std::string colour = palette(k);
  const ValueRange range{c.y_min, c.y_max};
  std::string out, line;
  for (std::size_t i = 0; i < s.y.size() && i < c.categories.size(); ++i)
    if (std::isfinite(s.y[i])) line += fmt::format("{}{} {}", line.empty() ? "M" : " L", num(px(i)), num(py(s.y[i])));
  if (c.series.size() > 1 && !line.empty())
    out += fmt::format(
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" stroke-opacity=\"0.6\"/>\n", line, colour);
  for (std::size_t i = 0; i < s.y.size() && i < c.categories.size(); ++i) {
    if (!std::isfinite(s.y[i])) continue;
    const double x = px(i), lo = range.clip(s.low[i]), hi = range.clip(s.high[i]);
    const std::string tip = fmt::format("{}{}{}: {}", escape(s.name), s.name.empty() ? "" : ", ",
                                        escape(c.categories[i]), data_num(s.y[i]));
    if (std::isfinite(lo) && std::isfinite(hi)) {
      const bool cut_lo = lo != s.low[i], cut_hi = hi != s.high[i];
      std::string d = fmt::format("M{} {} L{} {}", num(x), num(py(lo)), num(x), num(py(hi)));
      if (!cut_lo) d += fmt::format(" M{} {} L{} {}", num(x - 4), num(py(lo)), num(x + 4), num(py(lo)));
      if (!cut_hi) d += fmt::format(" M{} {} L{} {}", num(x - 4), num(py(hi)), num(x + 4), num(py(hi)));
      out += fmt::format("<path class=\"errorbar\" data-low=\"{}\" data-high=\"{}\"{} d=\"{}\" stroke=\"{}\" "
                         "stroke-width=\"1.5\" fill=\"none\"/>",
                         data_num(lo), data_num(hi),
                         cut_lo || cut_hi ? fmt::format(" data-clipped=\"{}\"", cut_lo && cut_hi ? "both" : cut_lo ? "low" : "high")
                                          : "",
                         d, colour);
    }
    out += fmt::format("<circle class=\"mean\" data-mean=\"{}\" data-x=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" "
                       "fill=\"{}\"><title>{} [{}, {}]</title></circle>\n",
                       data_num(s.y[i]), c.x_values.empty() ? escape(c.categories[i]) : data_num(c.x_values[i]),
                       num(x), num(py(s.y[i])), colour, tip, data_num(lo), data_num(hi));
  }
  return out;
}

} // namespace

std::string interval_chart(const IntervalChart& c) {
  const double left = 70, right = 24, top = 28, bottom = 44;
  const double w = c.width - left - right, h = c.height - top - bottom;
  const ValueRange range{c.y_min, c.y_max};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.y.size(); ++i)
      for (double v : {s.y[i], range.clip(s.low[i]), range.clip(s.high[i])})
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (c.zero_line && std::isfinite(lo)) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  const NumericAxis a = linear_axis(lo, hi, 5, c.y_min, c.y_max);
  std::vector<std::string> names;
  for (const auto& s : c.series)
    names.push_back(s.name);
  int rows = 0;
  const std::string legend =
      c.series.size() > 1 ? legend_rows(names, left, c.height + 6.0, c.width, rows) : "";
  const bool numeric = !c.x_values.empty() && c.x_values.size() == c.categories.size();
  std::string out = svg_open(c.id, c.title, c.width, c.height + 16 * rows + (rows ? 6 : 0),
                             numeric ? (c.log_x ? "chart x-log" : "chart x-linear") : "chart x-categorical");
  out += fmt::format("<text x=\"{}\" y=\"16\" class=\"ctitle\">{}</text>\n", num(left), escape(c.title));
  out += y_grid(a, left, top, w, h) + y_title(c.y_label, top, h);
  auto py = [&](double y) { return top + h - a.fraction(y) * h; };
  const double slot = w / static_cast<double>(std::max<std::size_t>(c.categories.size(), 1));
  const double dodge = std::min(10.0, slot * 0.5 / static_cast<double>(std::max<std::size_t>(c.series.size(), 1)));
  NumericAxis ax;
  if (numeric) {
    const auto [x0, x1] = std::minmax_element(c.x_values.begin(), c.x_values.end());
    ax = axis_over(*x0, *x1, c.log_x, 6);
    out += x_ticks(ax, left, top, w, h);
  } else {
    for (std::size_t i = 0; i < c.categories.size(); ++i)
      out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xtick\">{}</text>\n",
                         num(left + slot * (static_cast<double>(i) + 0.5)), num(top + h + 14), escape(c.categories[i]));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xlabel\">{}{}</text>\n", num(left + w / 2), num(top + h + 34),
                     escape(c.x_label), numeric && c.log_x ? " (log scale)" : "");
  if (c.zero_line)
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
        num(left), num(left + w), num(py(0)));
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    // Numeric axes: every series at the value's own position (to scale); categories: side by side.
    const double shift = dodge * (static_cast<double>(k) - (static_cast<double>(c.series.size()) - 1) / 2);
    auto px = [&](std::size_t i) {
      return numeric ? left + ax.fraction(c.x_values[i]) * w : left + slot * (static_cast<double>(i) + 0.5) + shift;
    };
    out += interval_series(c, k, px, py);
  }
  return out + legend + "</svg>\n";
}

std::string heatmap(const Heatmap& c) {
  const double left = 40 + 7.0 * static_cast<double>(std::max_element(c.rows.begin(), c.rows.end(),
                                                                      [](const auto&a, const auto&b) {
                                                                        return a.size() < b.size();
                                                                      })
                                                         ->size()),
               top = 48, cell_w = 96, cell_h = 30;
  const int width = static_cast<int>(left + cell_w * static_cast<double>(c.cols.size()) + 20);
  const int height = static_cast<int>(top + cell_h * static_cast<double>(c.rows.size()) + 50);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& row : c.values)
    for (double v : row)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  std::string out = svg_open(c.id, c.title, width, height, "chart heatmap");
  out += fmt::format("<text x=\"4\" y=\"16\" class=\"ctitle\">{}</text>\n", escape(c.title));
  out += fmt::format("<text x=\"{}\" y=\"32\" class=\"xlabel\">{}</text>\n",
                     num(left + cell_w * static_cast<double>(c.cols.size()) / 2), escape(c.col_label));
  for (std::size_t j = 0; j < c.cols.size(); ++j)
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xtick\">{}</text>\n",
                       num(left + cell_w * (static_cast<double>(j) + 0.5)), num(top - 4), escape(c.cols[j]));
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const double y = top + cell_h * static_cast<double>(i);
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"ytick\">{}</text>\n", num(left - 6),
                       num(y + cell_h / 2 + 4), escape(c.rows[i]));
    for (std::size_t j = 0; j < c.cols.size(); ++j) {
      const double v = c.values[i][j];
      const double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      const double x = left + cell_w * static_cast<double>(j);
      out += fmt::format(
          "<rect class=\"cell\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\" stroke=\"#fff\"/><text x=\"{}\" y=\"{}\" class=\"xtick\" "
          "style=\"fill:{}\">{}</text>\n",
          data_num(v), num(x), num(y), num(cell_w), num(cell_h),
          std::isfinite(v) ? scale_colour(t) : "#dddddd", num(x + cell_w / 2), num(y + cell_h / 2 + 4),
          std::isfinite(v) && t > 0.45 ? "#fff" : "#111", escape(c.texts[i][j]));
    }
  }
  const double ly = top + cell_h * static_cast<double>(c.rows.size()) + 14;
  out += fmt::format("<text x=\"4\" y=\"{}\" class=\"legend\">rows: {}</text>\n", num(ly + 4),
                     escape(c.row_label));
  for (int k = 0; k <= 4; ++k)
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"{}\"/>", num(4 + 24.0 * k),
                       num(ly + 14), scale_colour(k / 4.0));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"legend\">{} to {}</text>\n", num(132), num(ly + 23),
                     data_num(lo), data_num(hi));
  return out + "</svg>\n";
}

std::vector<std::size_t> pareto_front(const std::vector<ParetoPoint>& p, bool x_higher_better,
                                      bool y_higher_better) {
  // In "better" coordinates (negated where higher is better) both are minimised.
  auto bx = [&](std::size_t i) { return x_higher_better ? -p[i].x : p[i].x; };
  auto by = [&](std::size_t i) { return y_higher_better ? -p[i].y : p[i].y; };
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p[i].x) || !std::isfinite(p[i].y)) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < p.size() && !dominated; ++j)
      dominated = j != i && std::isfinite(p[j].x) && std::isfinite(p[j].y) && bx(j) <= bx(i) && by(j) <= by(i) &&
                  (bx(j) < bx(i) || by(j) < by(i));
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::string pareto_chart(const ParetoChart& c) {
  const double left = 70, right = 24, top = 28, bottom = 44;
  const double w = c.width - left - right, h = c.height - top - bottom;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& p : c.points)
    if (std::isfinite(p.x) && std::isfinite(p.y))
      x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
  const NumericAxis ax = axis_over(x0, x1, c.log_x, 6), ay = axis_over(y0, y1, c.log_y, 5);
  auto px = [&](double x) { return left + ax.fraction(x) * w; };
  auto py = [&](double y) { return top + h - ay.fraction(y) * h; };
  std::string out = svg_open(c.id, c.title, c.width, c.height,
                             fmt::format("chart pareto {} {}", ax.log ? "x-log" : "x-linear", ay.log ? "y-log" : "y-linear"));
  out += fmt::format("<text x=\"{}\" y=\"16\" class=\"ctitle\">{}</text>\n", num(left), escape(c.title));
  out += y_grid(ay, left, top, w, h) + y_title(c.y_label + (ay.log ? " (log scale)" : ""), top, h);
  out += x_ticks(ax, left, top, w, h);
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xlabel\">{}{}</text>\n", num(left + w / 2),
                     num(top + h + 34), escape(c.x_label), ax.log ? " (log scale)" : "");
  auto front = pareto_front(c.points, c.x_higher_better, c.y_higher_better);
  std::sort(front.begin(), front.end(), [&](auto a, auto b) { return c.points[a].x < c.points[b].x; });
  std::string line;
  for (auto i : front)
    line += fmt::format("{}{} {}", line.empty() ? "M" : " L", num(px(c.points[i].x)), num(py(c.points[i].y)));
  out += fmt::format("<path class=\"front\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n",
                     line, palette(1));
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const bool on_front = std::find(front.begin(), front.end(), i) != front.end();
    out += fmt::format(
        "<circle class=\"{}\" data-x=\"{}\" data-y=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" "
        "fill-opacity=\"{}\"><title>{}</title></circle>\n",
        on_front ? "front-point" : "dominated", data_num(p.x), data_num(p.y), num(px(p.x)), num(py(p.y)),
        on_front ? 5 : 4, on_front ? palette(1) : palette(0), on_front ? "1" : "0.3", escape(p.tooltip));
  }
  for (std::size_t k = 0; k < front.size(); ++k) { // labels alternate above and below the front
    const auto& p = c.points[front[k]];
    out += fmt::format("<text class=\"front-label\" x=\"{}\" y=\"{}\">{}</text>\n", num(px(p.x) + 7),
                       num(py(p.y) + (k % 2 ? 14 : -7)), escape(p.label));
  }
  return out + "</svg>\n";
}

std::string timeline_chart(const Timeline& c) {
  const double left = 110, right = 16, top = 28, row_h = 22;
  const double w = c.width - left - right, plot_h = row_h * static_cast<double>(c.rows.size());
  const int height = static_cast<int>(top + plot_h + 62);
  const double x_max = c.x_max > 0 ? c.x_max : 1;
  auto px = [&](double x) { return left + std::clamp(x / x_max, 0.0, 1.0) * w; };
  std::string out = svg_open(c.id, c.title, c.width, height, "chart timeline");
  out += fmt::format("<text x=\"{}\" y=\"16\" class=\"ctitle\">{}</text>\n", num(left), escape(c.title));
  for (double t : nice_ticks(0, x_max, 8))
    if (t <= x_max)
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/><text x=\"{0}\" y=\"{3}\" "
          "class=\"xtick\">{4}</text>\n",
          num(px(t)), num(top), num(top + plot_h), num(top + plot_h + 14), tick_label(t));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xlabel\">{}</text>\n", num(left + w / 2),
                     num(top + plot_h + 32), escape(c.x_label));
  auto colour_of = [&](const std::string& state) {
    for (const auto& [s, colour] : c.states)
      if (s == state) return colour;
    return std::string("#999999");
  };
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + row_h * static_cast<double>(r);
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"blabel\">{}</text>\n", num(left - 6), num(y + 15),
                       escape(c.rows[r].name));
    for (const auto& s : c.rows[r].spans)
      out += fmt::format(
          "<rect class=\"span\" data-state=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: {} from {:.2f} to {:.2f}</title></rect>",
          escape(s.state), num(px(s.start)), num(y + 3), num(std::max(px(s.end) - px(s.start), 1.5)),
          num(row_h - 6), colour_of(s.state), escape(c.rows[r].name), escape(s.state), s.start, s.end);
    out += "\n";
  }
  double x = left;
  for (const auto& [state, colour] : c.states) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
        "class=\"legend\">{}</text>",
        num(x), num(top + plot_h + 40), colour, num(x + 16), num(top + plot_h + 50), escape(state));
    x += 30 + 7.0 * static_cast<double>(state.size());
  }
  return out + "\n</svg>\n";
}

std::string compare_panel(const ComparePanel& c) {
  const double left = 76, right = 14, top = 34, row_h = 22, height = 112;
  const double w = c.width - left - right, h = 2 * row_h;
  const ValueRange range{c.range_lo, c.range_hi};
  struct Row {
    const char* name;
    double mean, low, high;
  };
  const Row rows[2] = {{"baseline", c.baseline, range.clip(c.baseline_low), range.clip(c.baseline_high)},
                       {"candidate", c.candidate, range.clip(c.candidate_low), range.clip(c.candidate_high)}};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& r : rows)
    for (double v : {r.mean, r.low, r.high})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  for (double v : c.limits)
    if (std::isfinite(v) && v >= c.range_lo && v <= c.range_hi) lo = std::min(lo, v), hi = std::max(hi, v);
  const NumericAxis a = linear_axis(lo, hi, 4, c.range_lo, c.range_hi);
  auto px = [&](double x) { return left + a.fraction(x) * w; };
  std::string out = svg_open(c.id, c.title, c.width, static_cast<int>(height), "chart compare-panel");
  out += fmt::format("<text x=\"4\" y=\"14\" class=\"ctitle\">{}</text><text x=\"4\" y=\"28\" "
                     "class=\"legend\">{}</text>\n",
                     escape(c.title), escape(c.note));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"plot\"/>\n", num(left), num(top),
                     num(w), num(h));
  out += x_ticks(a, left, top, w, h);
  for (double v : c.limits)
    if (std::isfinite(v) && v >= a.lo && v <= a.hi)
      out += fmt::format("<line class=\"limit\" data-value=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
                         "stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
                         data_num(v), num(px(v)), num(px(v)), num(top), num(top + h));
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * (static_cast<double>(i) + 0.5);
    const std::string colour = i == 1 && c.flagged ? palette(1) : palette(i == 0 ? 6 : 0);
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"blabel\">{}</text>", num(left - 6), num(y + 4), r.name);
    if (std::isfinite(r.low) && std::isfinite(r.high))
      out += fmt::format("<path class=\"errorbar\" data-low=\"{}\" data-high=\"{}\" d=\"M{} {} L{} {} M{} {} L{} {} "
                         "M{} {} L{} {}\" stroke=\"{}\" stroke-width=\"1.5\" fill=\"none\"/>",
                         data_num(r.low), data_num(r.high), num(px(r.low)), num(y), num(px(r.high)), num(y),
                         num(px(r.low)), num(y - 4), num(px(r.low)), num(y + 4), num(px(r.high)), num(y - 4),
                         num(px(r.high)), num(y + 4), colour);
    if (std::isfinite(r.mean))
      out += fmt::format("<circle class=\"mean\" data-mean=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}: "
                         "{} [{}, {}]</title></circle>",
                         data_num(r.mean), num(px(r.mean)), num(y), colour, r.name, data_num(r.mean),
                         data_num(r.low), data_num(r.high));
    out += "\n";
  }
  return out + "</svg>\n";
}

} // namespace dcsim::tools::svg
