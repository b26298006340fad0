// Inline SVG charts for report.html: plain markup, no scripts, no external fonts or files.
//
// Every chart is an <svg> element with a <title> (read by screen readers and shown as a tooltip) and
// class "chart"; values are written with fixed precision so the same data give the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::tools::svg {

std::string escape(std::string_view text); ///< XML/HTML text and attribute escaping

/// About `target` round tick values covering [lo, hi] (1, 2, 5 × 10^k steps).
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
std::string tick_label(double v); ///< compact: 1.2k, 3.4M, 0.25, 12

struct Series {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> y_low, y_high; ///< optional band (same size as y), e.g. min and max over replicas
};

struct LineChart {
  std::string id, title, x_label, y_label;
  std::vector<Series> series;
  int width = 560, height = 240;
  bool step = false; ///< draw as a step function (gauges sampled on a grid)
};
std::string line_chart(const LineChart& chart);

struct Bar {
  std::string label;
  double value = 0;
  std::string note; ///< shown after the value
};
struct BarChart {
  std::string id, title, value_label;
  std::vector<Bar> bars;
  int width = 560;
};
/// Horizontal bars, one per row.
std::string bar_chart(const BarChart& chart);

struct WaterfallStep {
  std::string label;
  double frac = 0; ///< share of the total (0..1)
};
/// From 100% down: a full bar (labelled total_label), one floating bar per loss, and the remainder (e.g.
/// productive) last. `label_px`: the width kept for the steps' labels, left of the bars.
std::string waterfall_chart(const std::string& id, const std::string& title,
                            const std::vector<WaterfallStep>& losses, const WaterfallStep& remainder,
                            int width = 620, const std::string& total_label = "GPU-time", double label_px = 150);

/// A categorical colour (for series), cycling through 8 colour-blind-safe colours.
std::string palette(std::size_t i);

} // namespace dcsim::tools::svg
