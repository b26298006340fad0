#include "models/hardware/gpu_power.hpp"

#include <cmath>

namespace dcsim::hardware {

double GpuPowerCurve::busy_w(double clock_frac) const {
  if (clock_frac == 1.0) return max_w; // exact at the nominal clock, whatever the exponent
  return max_w * (static_frac + (1.0 - static_frac) * std::pow(clock_frac, dvfs_exponent));
}

} // namespace dcsim::hardware
