// Numeric axes for the report charts (svg_plots.hpp), and the range a metric's values can take.
//
// An axis maps a value to a fraction of its length: linear, (v − lo) ÷ (hi − lo); logarithmic,
// (log10 v − log10 lo) ÷ (log10 hi − log10 lo). Ticks are round values (1, 2, 5 × 10^k) on a linear axis
// and decades (10^k) on a log axis, with 2 × and 5 × 10^k added when the axis spans fewer than two
// decades. Tick marks carry data-value attributes, so a test can check that the drawn positions are what
// the axis claims (proportional to the value, or to its logarithm).
//
// Which scale: a sweep key (or a Pareto metric) whose values are all numbers goes on a numeric axis,
// drawn to scale; logarithmic when every value is > 0, the largest is at least 10 × the smallest, and
// the narrowest gap between neighbouring values takes a larger share of the axis on a log scale than on
// a linear one (600, 1800, 7200 s: log; 100, 200, ..., 1000: linear; 0, 2, 4: linear, 0 has no log).
//
// Ranges: a metric's 95% interval can reach outside the values the metric can take (Student t over few
// replicas near a bound: goodput 0.998 ± 0.004). Charts and tables clip it to the range: fractions
// (unit "fraction" in the metric table) to [0, 1]; the magnitude units of the metric table (counts, hours,
// GPU-hours, energy, USD, ...: is_magnitude_unit) to ≥ 0; an undeclared metric is clipped only when its name
// ends in _frac. The CSV files keep the unclipped interval.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::tools::svg {

struct NumericAxis {
  bool log = false;
  double lo = 0, hi = 1;     ///< the values at the ends of the axis
  std::vector<double> ticks; ///< inside [lo, hi]
  /// Where `v` falls along the axis: 0 at lo, 1 at hi (outside for values outside).
  double fraction(double v) const;
};

/// A linear axis over [lo, hi] with 5% room at each end, widened to round ticks, but never past
/// `bound_lo` / `bound_hi` (a metric's range: a fraction's axis ends at 1).
NumericAxis linear_axis(double lo, double hi, int target, double bound_lo = -1e308, double bound_hi = 1e308);
/// A log axis over [lo, hi] (both > 0) with 5% room at each end in log space, ticks at decades.
NumericAxis log_axis(double lo, double hi);
/// Decade ticks in [lo, hi] (lo > 0), with 2 and 5 × 10^k when the span is under two decades.
std::vector<double> log_ticks(double lo, double hi);

/// Whether numeric values (e.g. a sweep key's) read better on a log axis (rule in the header comment).
bool prefers_log(std::vector<double> values);
/// Every text parsed as a finite number, or empty when any is not one (then the axis is categorical).
std::vector<double> numeric_values(const std::vector<std::string>& texts);

struct ValueRange {
  double lo = -1e308, hi = 1e308;
  double clip(double v) const; ///< v clamped into [lo, hi] (NaN stays NaN)
};
/// Units of the metric table whose values are never negative (counts, durations, energy, money, ...).
/// A unit neither "fraction" nor listed here leaves a metric unclipped; a unit test requires every unit
/// of the metric table to be one or the other, so a new unit is a decision, not a silent default.
bool is_magnitude_unit(std::string_view unit);
/// The values a metric can take (see the header comment).
ValueRange metric_range(std::string_view metric);

} // namespace dcsim::tools::svg
