// More inline SVG charts for the reports (svg_chart.hpp has the line, bar and waterfall charts): values
// with 95% interval bars, a heatmap, a Pareto front, a state timeline. Same conventions: plain markup, an
// id and a <title> per chart, class "chart", fixed precision so the same data give the same bytes. Marks
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

/// A point of a Pareto chart: `x` to minimise, `y` to maximise.
struct ParetoPoint {
  double x = 0, y = 0;
  std::string label;   ///< short, written beside front points
  std::string tooltip; ///< every point's <title>
};
/// Indices of the non-dominated points: no other point has x <= and y >= with one of them strict.
std::vector<std::size_t> pareto_front(const std::vector<ParetoPoint>& points);
struct ParetoChart {
  std::string id, title, x_label, y_label;
  std::vector<ParetoPoint> points;
  int width = 620, height = 320;
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

/// A row of a forest plot: a value and its interval, on one horizontal line.
struct ForestRow {
  std::string label;
  double value = 0, low = 0, high = 0; ///< low, high NaN: no interval
  bool flagged = false;                ///< drawn in the warning colour (e.g. a failed gate)
};
/// One row per value, its interval as a bar with caps, a dashed line at zero (differences).
std::string forest_chart(const std::string& id, const std::string& title, const std::string& x_label,
                         const std::vector<ForestRow>& rows, int width = 760);

} // namespace dcsim::tools::svg
