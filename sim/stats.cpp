#include "sim/stats.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>

namespace dcsim::sim {

double student_t95(double dof) {
  boost::math::students_t dist(dof);
  return boost::math::quantile(dist, 0.975);
}

Summary summarize(std::span<const double> values) {
  constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
  Summary s;
  double first = NaN;
  bool all_equal = true;
  double deviations = 0.0; // from the first value: identical values give their value exactly
  for (double v : values) {
    if (std::isnan(v)) continue;
    if (s.n++ == 0)
      first = v;
    else if (v != first)
      all_equal = false;
    deviations += v - first;
  }
  if (s.n == 0) return Summary{NaN, NaN, NaN, NaN, 0};
  if (s.n < 2) return Summary{first, NaN, NaN, NaN, s.n};
  if (all_equal) return Summary{first, first, first, 0.0, s.n};
  s.mean = first + deviations / static_cast<double>(s.n);
  double ss = 0.0;
  for (double v : values)
    if (!std::isnan(v)) ss += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  const double half = student_t95(static_cast<double>(s.n - 1)) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

} // namespace dcsim::sim
