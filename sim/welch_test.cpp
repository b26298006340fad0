#include "sim/welch_test.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dcsim::sim {
namespace {

struct Moments {
  std::size_t n = 0;
  double mean = 0;
  double variance = 0; ///< sample variance (n − 1)
};

Moments moments(std::span<const double> values) {
  Moments m;
  double sum = 0;
  for (double v : values)
    if (!std::isnan(v)) {
      ++m.n;
      sum += v;
    }
  if (m.n == 0) return m;
  m.mean = sum / static_cast<double>(m.n);
  double ss = 0;
  for (double v : values)
    if (!std::isnan(v)) ss += (v - m.mean) * (v - m.mean);
  m.variance = m.n > 1 ? ss / static_cast<double>(m.n - 1) : 0.0;
  return m;
}

} // namespace

WelchResult welch_t_test(std::span<const double> a, std::span<const double> b) {
  const Moments ma = moments(a), mb = moments(b);
  WelchResult r;
  r.n_a = ma.n;
  r.n_b = mb.n;
  r.mean_a = ma.mean;
  r.mean_b = mb.mean;
  if (ma.n < 2 || mb.n < 2) return r;
  r.testable = true;
  const double va = ma.variance / static_cast<double>(ma.n);
  const double vb = mb.variance / static_cast<double>(mb.n);
  const double se2 = va + vb;
  if (se2 == 0.0) {
    r.t = ma.mean == mb.mean ? 0.0 : std::copysign(INFINITY, mb.mean - ma.mean);
    r.dof = static_cast<double>(ma.n + mb.n - 2);
    r.p_two_sided = ma.mean == mb.mean ? 1.0 : 0.0;
    return r;
  }
  r.t = (mb.mean - ma.mean) / std::sqrt(se2);
  r.dof = se2 * se2 / (va * va / static_cast<double>(ma.n - 1) + vb * vb / static_cast<double>(mb.n - 1));
  const boost::math::students_t dist(r.dof);
  r.p_two_sided = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t))));
  return r;
}

WelchResult paired_t_test(std::span<const double> a, std::span<const double> b) {
  std::vector<double> d, pa, pb;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (!std::isnan(a[i]) && !std::isnan(b[i])) {
      d.push_back(b[i] - a[i]);
      pa.push_back(a[i]);
      pb.push_back(b[i]);
    }
  const Moments md = moments(d);
  WelchResult r;
  r.n_a = r.n_b = md.n;
  r.mean_a = moments(pa).mean;
  r.mean_b = moments(pb).mean;
  if (md.n < 2) return r;
  r.testable = true;
  r.dof = static_cast<double>(md.n - 1);
  if (md.variance == 0.0) {
    r.t = md.mean == 0.0 ? 0.0 : std::copysign(INFINITY, md.mean);
    r.p_two_sided = md.mean == 0.0 ? 1.0 : 0.0;
    return r;
  }
  r.t = md.mean / std::sqrt(md.variance / static_cast<double>(md.n));
  const boost::math::students_t dist(r.dof);
  r.p_two_sided = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t))));
  return r;
}

std::vector<double> holm_adjust(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]);
    running = std::max(running, scaled);
    adjusted[order[k]] = running;
  }
  return adjusted;
}

} // namespace dcsim::sim
