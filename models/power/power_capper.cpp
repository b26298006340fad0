#include "models/power/power_capper.hpp"

#include <stdexcept>

namespace dcsim::power {

namespace {
constexpr double CLOCK_TOLERANCE = 1e-9;

/// The largest x in [lo, 1] with fits(x), given fits(lo) and !fits(1).
double bisect(double lo, const std::function<bool(double)>& fits) {
  double hi = 1.0;
  while (hi - lo > CLOCK_TOLERANCE) {
    const double mid = 0.5 * (lo + hi);
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}
} // namespace

double uniform_cap(double available_w, double min_clock, const std::function<double(double)>& power_at) {
  if (power_at(1.0) <= available_w) return 1.0;
  if (power_at(min_clock) > available_w) return min_clock;
  return bisect(min_clock, [&](double c) { return power_at(c) <= available_w; });
}

std::vector<double> priority_caps(double available_w, double min_clock, int jobs,
                                  const std::function<double(const std::vector<double>&)>& power_at) {
  std::vector<double> caps(static_cast<std::size_t>(jobs), 1.0);
  if (power_at(caps) <= available_w) return caps;
  for (int j = jobs - 1; j >= 0; --j) {
    double& cap = caps[static_cast<std::size_t>(j)];
    cap = min_clock;
    if (power_at(caps) > available_w) continue; // not enough: cap the job before too
    cap = bisect(min_clock, [&](double c) {
      std::vector<double> trial = caps;
      trial[static_cast<std::size_t>(j)] = c;
      return power_at(trial) <= available_w;
    });
    return caps;
  }
  return caps;
}

void EnergyMeter::set(sim::Tick now, double power_w) {
  if (now < last_) throw std::logic_error("EnergyMeter: time went backwards");
  if (now > last_) {
    energy_j_ += power_w_ * sim::to_seconds(now - last_);
    if (power_w_ > peak_w_) peak_w_ = power_w_;
  }
  last_ = now;
  power_w_ = power_w;
}

} // namespace dcsim::power
