// Reading the axes of the report charts back from their SVG (tools/dcsim/svg_axis.hpp writes each tick
// label with data-value and data-pos), to check that an axis is what it claims: positions proportional
// to the values (linear) or to their logarithms (log).
#pragma once

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::test {

/// (data-value, data-pos) of every tick label of one class ("xtick" or "ytick") in an SVG.
inline std::vector<std::pair<double, double>> ticks_of(const std::string& svg, const std::string& cls) {
  std::vector<std::pair<double, double>> out;
  const std::regex tick("class=\"" + cls + "\" data-value=\"([^\"]+)\" data-pos=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1].str()), std::stod((*it)[2].str()));
  return out;
}

/// (data-x, cx) of every mark of an SVG that has both (means of an interval chart, Pareto points).
inline std::vector<std::pair<double, double>> marks_of(const std::string& svg) {
  std::vector<std::pair<double, double>> out;
  const std::regex mark("data-x=\"([^\"]+)\"[^>]* cx=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), mark); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stod((*it)[1].str()), std::stod((*it)[2].str()));
  return out;
}

/// Whether the positions are an affine function of f(value): every point lies on the line through the
/// points of least and greatest f(value) (to 0.15 px: the SVG writes positions to 0.1 px).
inline bool affine_in(const std::vector<std::pair<double, double>>& points, double (*f)(double)) {
  if (points.size() < 3) return false;
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                            [&](const auto& a, const auto& b) { return f(a.first) < f(b.first); });
  if (f(lo->first) == f(hi->first)) return false;
  for (const auto& [v, p] : points)
    if (std::fabs(lo->second + (f(v) - f(lo->first)) / (f(hi->first) - f(lo->first)) * (hi->second - lo->second) - p) > 0.15)
      return false;
  return true;
}

inline double linear_of(double v) {
  return v;
}
inline double log10_of(double v) {
  return std::log10(v);
}

} // namespace dcsim::test
