#include "tools/dcsim/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dcsim::tools::svg {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  for (double v = std::floor(lo / step) * step; v <= hi + step * 0.5 && ticks.size() < 50; v += step)
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string tick_label(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", std::round(v * 1e6) / 1e6);
}

std::string palette(std::size_t i) {
  static const char* colours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                  "#e69f00", "#56b4e9", "#7f7f7f", "#f0e442"};
  return colours[i % 8];
}

namespace {

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

/// A step series' band as one closed path: along the highs forward, back along the lows, each value held
/// until the next sample.
template <class Px, class Py> std::string step_band(const Series& s, Px px, Py py) {
  std::string d;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < s.x.size(); ++i)
    if (std::isfinite(s.y_low[i]) && std::isfinite(s.y_high[i])) at.push_back(i);
  if (at.empty()) return d;
  for (std::size_t j = 0; j < at.size(); ++j) {
    const double x_end = j + 1 < at.size() ? s.x[at[j + 1]] : s.x[at[j]];
    d += fmt::format("{}{} {} L{} {}", d.empty() ? "M" : " L", num(px(s.x[at[j]])), num(py(s.y_high[at[j]])),
                     num(px(x_end)), num(py(s.y_high[at[j]])));
  }
  for (std::size_t j = at.size(); j-- > 0;) {
    const double x_end = j + 1 < at.size() ? s.x[at[j + 1]] : s.x[at[j]];
    d += fmt::format(" L{} {} L{} {}", num(px(x_end)), num(py(s.y_low[at[j]])), num(px(s.x[at[j]])),
                     num(py(s.y_low[at[j]])));
  }
  return d;
}

/// The extent of the chart's finite points, bands included: {x0, x1, y0, y1} (infinite without data).
std::array<double, 4> data_range(const LineChart& c) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : c.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      const double lo = s.y_low.empty() ? s.y[i] : s.y_low[i], hi = s.y_high.empty() ? s.y[i] : s.y_high[i];
      y0 = std::min({y0, s.y[i], lo});
      y1 = std::max({y1, s.y[i], hi});
    }
  }
  return {x0, x1, y0, y1};
}

/// Several series: a legend under the chart, as many names per row as fit (never over the lines); `rows`
/// is set to its rows (0 for one series).
std::string legend_of(const LineChart& c, double left, int& rows) {
  std::string legend;
  rows = 0;
  if (c.series.size() <= 1) return legend;
  double lx = left, ly = c.height + 8.0;
  rows = 1;
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const double item = 26 + 6.5 * static_cast<double>(c.series[k].name.size());
    if (lx > left && lx + item > c.width) lx = left, ly += 16, ++rows;
    legend += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                          "class=\"legend\">{}</text>\n",
                          num(lx), num(ly - 5), palette(k), num(lx + 16), num(ly), escape(c.series[k].name));
    lx += item;
  }
  return legend;
}

} // namespace

std::string line_chart(const LineChart& c) {
  const double left = 64, right = 16, top = 28, bottom = 40;
  const double w = c.width - left - right, h = c.height - top - bottom;
  const std::array<double, 4> range = data_range(c);
  double x0 = range[0], x1 = range[1], y0 = range[2], y1 = range[3];
  int legend_rows = 0;
  const std::string legend = legend_of(c, left, legend_rows);
  const int height = c.height + 16 * legend_rows;
  std::string out = fmt::format(
      "<svg class=\"chart\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\n",
      escape(c.id), c.width, height, c.width, height, escape(c.title));
  out += fmt::format("<text x=\"{}\" y=\"16\" class=\"ctitle\">{}</text>\n", num(left), escape(c.title));
  if (!std::isfinite(x0)) return out + "<text x=\"70\" y=\"80\">no data</text></svg>\n";
  if (y0 > 0 && y0 < 0.5 * y1) y0 = 0; // include zero when it is near
  { // 5% room above and below, so no line runs along the frame (a flat line sits mid-axis)
    const double pad = y1 > y0 ? (y1 - y0) * 0.05 : (y0 == 0 ? 1.0 : std::fabs(y0) * 0.05);
    y1 += pad;
    if (y0 != 0 || y1 <= pad) y0 -= pad;
  }
  const auto yt = nice_ticks(y0, y1, 4);
  const auto xt = nice_ticks(x0, x1, 6);
  y0 = std::min(y0, yt.front());
  y1 = std::max(y1, yt.back());
  if (x1 == x0) x1 = x0 + 1;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * w; };
  auto py = [&](double y) { return top + h - (y - y0) / (y1 - y0) * h; };
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"plot\"/>\n", num(left),
                     num(top), num(w), num(h));
  for (double t : yt)
    if (t >= y0 && t <= y1) out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/><text x=\"{3}\" y=\"{4}\" "
        "class=\"ytick\">{5}</text>\n",
        num(left), num(left + w), num(py(t)), num(left - 4), num(py(t) + 4), tick_label(t));
  for (double t : xt)
    if (t >= x0 && t <= x1)
      out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xtick\">{}</text>\n", num(px(t)), num(top + h + 14),
                         tick_label(t));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xlabel\">{}</text>\n", num(left + w / 2),
                     num(c.height - 6.0), escape(c.x_label));
  out +=
      fmt::format("<text x=\"12\" y=\"{0}\" class=\"ylabel\" transform=\"rotate(-90 12 {0})\">{1}</text>\n",
                  num(top + h / 2), escape(c.y_label));
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const auto& s = c.series[k];
    const std::string colour = palette(k);
    auto path_of = [&](const std::vector<double>& ys, bool reverse) {
      std::string d;
      const std::size_t n = s.x.size();
      double prev_y = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t i = reverse ? n - 1 - j : j;
        if (!std::isfinite(ys[i])) continue;
        if (c.step && !d.empty()) d += fmt::format(" L{} {}", num(px(s.x[i])), num(py(prev_y)));
        d += fmt::format("{}{} {}", d.empty() ? "M" : " L", num(px(s.x[i])), num(py(ys[i])));
        prev_y = ys[i];
      }
      return d;
    };
    if (!s.y_low.empty() && !s.y_high.empty()) {
      std::string band = c.step ? step_band(s, px, py) : path_of(s.y_high, false);
      std::string low = c.step ? "" : path_of(s.y_low, true);
      if (!band.empty() && (c.step || !low.empty()))
        out += fmt::format("<path class=\"band\" d=\"{}{} Z\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\"/>\n",
                           band, c.step ? "" : " L" + low.substr(1), colour);
    }
    double y_max = -std::numeric_limits<double>::infinity();
    for (double v : s.y)
      if (std::isfinite(v)) y_max = std::max(y_max, v);
    out += fmt::format("<path class=\"series\" data-series=\"{}\" data-y-max=\"{:.6g}\" d=\"{}\" fill=\"none\" "
                       "stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title></path>\n",
                       escape(s.name), y_max, path_of(s.y, false), colour, escape(s.name));
  }
  return out + legend + "</svg>\n";
}

std::string bar_chart(const BarChart& c) {
  const double left = 170, right = 120, top = 26, row = 22;
  const int height =
      static_cast<int>(top + row * static_cast<double>(std::max<std::size_t>(c.bars.size(), 1)) + 26);
  const double w = c.width - left - right;
  double vmax = 0;
  for (const auto& b : c.bars)
    if (std::isfinite(b.value)) vmax = std::max(vmax, b.value);
  std::string out = fmt::format(
      "<svg class=\"chart\" id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\n",
      escape(c.id), c.width, height, c.width, height, escape(c.title));
  out += fmt::format("<text x=\"4\" y=\"16\" class=\"ctitle\">{}</text>\n", escape(c.title));
  if (c.bars.empty()) return out + "<text x=\"10\" y=\"40\">no data</text></svg>\n";
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double y = top + row * static_cast<double>(i);
    const double len = vmax > 0 && std::isfinite(b.value) ? b.value / vmax * w : 0;
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"blabel\">{}</text>", num(left - 6), num(y + 14),
                       escape(b.label));
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" class=\"bar\"><title>{}: {:g} "
        "{}</title></rect>",
        num(left), num(y + 3), num(std::max(len, 0.5)), num(row - 6), palette(0), escape(b.label), b.value,
        escape(c.value_label));
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"bvalue\">{}{}</text>\n", num(left + len + 4),
                       num(y + 14), tick_label(b.value), b.note.empty() ? "" : " " + escape(b.note));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xlabel\">{}</text>\n", num(left + w / 2),
                     num(height - 6.0), escape(c.value_label));
  return out + "</svg>\n";
}

std::string waterfall_chart(const std::string& id, const std::string& title,
                            const std::vector<WaterfallStep>& losses, const WaterfallStep& remainder,
                            int width, const std::string& total_label, double label_px) {
  const double left = label_px, right = 90, top = 26, row = 22;
  const std::size_t rows = losses.size() + 2;
  const int height = static_cast<int>(top + row * static_cast<double>(rows) + 30);
  const double w = width - left - right;
  std::string out = fmt::format("<svg class=\"chart waterfall\" id=\"{}\" "
                                "xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\n",
                                escape(id), width, height, width, height, escape(title));
  out += fmt::format("<text x=\"4\" y=\"16\" class=\"ctitle\">{}</text>\n", escape(title));
  auto bar = [&](std::size_t i, const std::string& label, double from, double to, const std::string& colour,
                 const std::string& value_text) {
    const double y = top + row * static_cast<double>(i);
    const double x_a = left + std::min(from, to) * w, x_b = left + std::max(from, to) * w;
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"blabel\">{}</text>", num(left - 6), num(y + 14),
                       escape(label));
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" class=\"bar\"><title>{}: {}"
        "</title></rect>",
        num(x_a), num(y + 3), num(std::max(x_b - x_a, 0.5)), num(row - 6), colour, escape(label), value_text);
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"bvalue\">{}</text>\n", num(x_b + 4), num(y + 14),
                       value_text);
  };
  bar(0, total_label, 0, 1, "#7f7f7f", "100%");
  double level = 1.0;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    const double f = losses[i].frac;
    bar(i + 1, losses[i].label, level, level - f, "#d55e00", fmt::format("−{:.2f}%", f * 100));
    level -= f;
  }
  bar(rows - 1, remainder.label, 0, remainder.frac, "#009e73", fmt::format("{:.2f}%", remainder.frac * 100));
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0})
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xtick\">{:g}%</text>", num(left + t * w),
                       num(top + row * static_cast<double>(rows) + 14), t * 100);
  return out + "\n</svg>\n";
}

} // namespace dcsim::tools::svg
