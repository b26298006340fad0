#include "models/workload/checkpoint_interval.hpp"

#include <cmath>

namespace dcsim::workload {

double young_interval_s(double write_s, double mtbf_s) { return std::sqrt(2.0 * write_s * mtbf_s); }

double daly_interval_s(double write_s, double mtbf_s) {
  if (write_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = write_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * write_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - write_s;
}

double renewal_goodput(const RenewalInputs& in) {
  const double l = in.rate_per_s;
  if (l <= 0) return in.interval_s / (in.interval_s + in.write_s);
  const double det = std::expm1(l * in.detect_s) / l;
  const double rec = in.paused_during_recovery ? in.detect_s + in.restart_s
                                               : det + (1.0 / l + det) * std::expm1(l * in.restart_s);
  const double segment = (1.0 / l + rec) * std::expm1(l * (in.interval_s + in.write_s));
  return in.interval_s / segment;
}

double optimal_interval_s(double write_s, double mtbf_s) {
  // f(τ) = e^{λ(τ+δ)}(1 − λτ) − 1 decreases from e^{λδ} − 1 > 0 at τ = 0 to −1 at τ = M: bisect.
  const double l = 1.0 / mtbf_s;
  double lo = 0.0;
  double hi = mtbf_s;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (std::exp(l * (mid + write_s)) * (1.0 - l * mid) - 1.0 > 0)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

} // namespace dcsim::workload
