#include "tools/dcsim/svg_axis.hpp"

#include "models/ledger/metric_table.hpp"
#include "tools/dcsim/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dcsim::tools::svg {

double NumericAxis::fraction(double v) const {
  if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return (v - lo) / (hi - lo);
}

NumericAxis linear_axis(double lo, double hi, int target, double bound_lo, double bound_hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  const double pad = hi > lo ? (hi - lo) * 0.05 : (lo == 0 ? 1.0 : std::fabs(lo) * 0.05);
  NumericAxis a;
  const auto ticks = nice_ticks(lo - pad, hi + pad, target);
  a.lo = std::max(std::min(lo - pad, ticks.front()), std::min(bound_lo, lo));
  a.hi = std::min(std::max(hi + pad, ticks.back()), std::max(bound_hi, hi));
  for (double t : ticks)
    if (t >= a.lo - 1e-12 * (a.hi - a.lo) && t <= a.hi + 1e-12 * (a.hi - a.lo)) a.ticks.push_back(t);
  return a;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi >= lo)) return out;
  const bool minor = std::log10(hi) - std::log10(lo) < 2;
  for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1 && !minor) continue;
      const double t = m * std::pow(10.0, k);
      if (t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12)) out.push_back(t);
    }
  return out;
}

NumericAxis log_axis(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo)) throw std::invalid_argument("log_axis: values must be > 0");
  const double l0 = std::log10(lo), l1 = std::log10(hi), pad = l1 > l0 ? (l1 - l0) * 0.05 : 0.5;
  NumericAxis a;
  a.log = true;
  a.lo = std::pow(10.0, l0 - pad);
  a.hi = std::pow(10.0, l1 + pad);
  a.ticks = log_ticks(a.lo, a.hi);
  return a;
}

bool prefers_log(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() < 2 || !(v.front() > 0) || v.back() < 10 * v.front()) return false;
  double lin = 1, lg = 1; // the narrowest gap as a share of the axis
  for (std::size_t i = 1; i < v.size(); ++i) {
    lin = std::min(lin, (v[i] - v[i - 1]) / (v.back() - v.front()));
    lg = std::min(lg, std::log(v[i] / v[i - 1]) / std::log(v.back() / v.front()));
  }
  return lg > lin;
}

std::vector<double> numeric_values(const std::vector<std::string>& texts) {
  std::vector<double> out;
  for (const auto& t : texts) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(t, &used);
    } catch (const std::exception&) {
      return {};
    }
    if (used != t.size() || !std::isfinite(v)) return {};
    out.push_back(v);
  }
  return out;
}

double ValueRange::clip(double v) const {
  return std::isnan(v) ? v : std::clamp(v, lo, hi);
}

bool is_magnitude_unit(std::string_view unit) {
  static const char* const units[] = {"count", "s",   "h",        "GPU-h", "GB",        "J/token",    "kWh",
                                      "MWh",   "kW",  "kWh/GPU-h", "tokens/s", "USD", "USD/GPU-h", "USD/Mtoken"};
  return std::find(std::begin(units), std::end(units), unit) != std::end(units);
}

ValueRange metric_range(std::string_view metric) {
  if (const auto* def = ledger::find_metric(metric)) {
    if (def->unit == "fraction") return {0, 1};
    if (is_magnitude_unit(def->unit)) return {0, 1e308};
    return {};
  }
  if (metric.ends_with("_frac")) return {0, 1};
  return {};
}

} // namespace dcsim::tools::svg
