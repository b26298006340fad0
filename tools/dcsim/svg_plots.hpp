// More inline SVG charts for the reports (svg_chart.hpp has the line, bar and waterfall charts): values
// with 95% interval bars, a heatmap, a Pareto front, a state timeline, a comparison panel per metric.
// Same conventions: plain markup, an id and a <title> per chart, class "chart", fixed precision so the
// same data give the same bytes. Numeric axes (svg_axis.hpp) label their ticks with data-value. Marks
// carry data-* attributes with their values (e.g. data-mean, data-low, data-high) for the browser test.
#pragma once

#include <string>
#include <vector>

namespace dcsim::tools::svg {

/// One series of an interval chart: a value and its interval per category (NaN where it has none).
struct IntervalSeries {
  std::string name;
  std::vector<double> y, low, high;
};
/// Means with interval bars over categorical x positions (e.g. a sweep key's values), one line and
/// colour per series, the series side by side within a category; the legend under the axis.
struct IntervalChart {
  std::string id, title, x_label, y_label;
  std::vector<std::string> categories;
  std::vector<IntervalSeries> series;
  int width = 620, height = 300; ///< the height of the plot and its axes; the legend adds its rows
  bool zero_line = false;        ///< draw y = 0 (differences)
  /// The categories' numeric values (same size as categories): a numeric x axis, each value drawn at
  /// its position to scale (svg_axis.hpp); empty: categories evenly spaced.
  std::vector<double> x_values;
  bool log_x = false; ///< with x_values (all > 0): a log axis, ticks at decades
  /// The values the metric can take (svg::metric_range): intervals are clipped to it, the axis ends there.
  double y_min = -1e308, y_max = 1e308;
};
std::string interval_chart(const IntervalChart& chart);

/// A grid of cells coloured by value (light to dark, min to max), each cell's text written in it.
struct Heatmap {
  std::string id, title, row_label, col_label;
  std::vector<std::string> rows, cols;
  std::vector<std::vector<double>> values;     ///< [row][col], NaN: no value (grey)
  std::vector<std::vector<std::string>> texts; ///< [row][col]
};
std::string heatmap(const Heatmap& chart);

/// A point of a Pareto chart (by default `x` to minimise, `y` to maximise).
struct ParetoPoint {
  double x = 0, y = 0;
  std::string label;   ///< short, written beside front points
  std::string tooltip; ///< every point's <title>
};
/// Indices of the non-dominated points: no other point is at least as good on both axes and better on
/// one (better: lower, or higher for an axis whose higher values are better).
std::vector<std::size_t> pareto_front(const std::vector<ParetoPoint>& points, bool x_higher_better = false,
                                      bool y_higher_better = true);
struct ParetoChart {
  std::string id, title, x_label, y_label;
  std::vector<ParetoPoint> points;
  int width = 620, height = 320;
  bool x_higher_better = false, y_higher_better = true;
  bool log_x = false, log_y = false; ///< log axes (used only when every value is > 0)
};
/// Dominated points faint, front points solid, joined in x order and labelled.
std::string pareto_chart(const ParetoChart& chart);

struct TimelineSpan {
  double start = 0, end = 0; ///< x units (e.g. hours)
  std::string state;
};
struct TimelineRow {
  std::string name;
  std::vector<TimelineSpan> spans;
};
/// One row per entity, its spans coloured by state; `states` lists (state, colour) for the legend.
struct Timeline {
  std::string id, title, x_label;
  std::vector<TimelineRow> rows;
  std::vector<std::pair<std::string, std::string>> states;
  double x_max = 1;
  int width = 900;
};
std::string timeline_chart(const Timeline& chart);

/// One metric of a comparison in its own small chart, on its own scale (so a metric moving by 0.5% is not
/// squashed by one moving by 50%): the baseline's and the candidate's means with their 95% intervals
/// (clipped to the metric's range), one row each, and dashed lines at the tolerance limits.
struct ComparePanel {
  std::string id, title, note; ///< note: e.g. the verdict, under the title
  double baseline = 0, baseline_low = 0, baseline_high = 0;    ///< NaN: absent
  double candidate = 0, candidate_low = 0, candidate_high = 0; ///< NaN: absent
  std::vector<double> limits;  ///< tolerance limits drawn as dashed lines (e.g. baseline − tolerance)
  double range_lo = -1e308, range_hi = 1e308; ///< the metric's range (svg::metric_range)
  bool flagged = false;        ///< a regression: drawn in the warning colour
  int width = 300;
};
std::string compare_panel(const ComparePanel& panel);

} // namespace dcsim::tools::svg
