#include "models/cooling/rack_thermal.hpp"

#include <cmath>

namespace dcsim::cooling {

double ThermalParams::clock_at(double gpu_temp_c) const {
  if (gpu_temp_c <= throttle_c || curve.empty()) return 1.0;
  double t0 = throttle_c;
  double f0 = 1.0;
  for (const ThrottlePoint& p : curve) {
    if (gpu_temp_c <= p.temp_c) return f0 + (p.clock_frac - f0) * (gpu_temp_c - t0) / (p.temp_c - t0);
    t0 = p.temp_c;
    f0 = p.clock_frac;
  }
  return f0;
}

RackThermal rack_at_clock(const ThermalParams& params, const hardware::GpuPowerCurve& gpu, double supply_c,
                          double flow_l_per_min, const RackLoad& load, double clock_frac) {
  RackThermal r;
  r.clock_frac = clock_frac;
  r.gpu_w = gpu.busy_w(clock_frac);
  r.rack_w = load.base_w + load.busy_gpus * r.gpu_w + load.idle_gpus * gpu.idle_w();
  r.return_c = supply_c + params.coolant.rise_k(r.rack_w, flow_l_per_min);
  const double hottest_w = load.busy_gpus > 0 ? r.gpu_w : load.idle_gpus > 0 ? gpu.idle_w() : 0.0;
  r.gpu_temp_c = r.return_c + hottest_w * params.thermal_resistance_k_per_w;
  r.cannot_cool = !(r.gpu_temp_c <= params.shutdown_c); // also true for infinite temperatures (no flow)
  return r;
}

RackThermal solve_rack(const ThermalParams& params, const hardware::GpuPowerCurve& gpu, double supply_c,
                       double flow_l_per_min, const RackLoad& load) {
  auto at = [&](double f) { return rack_at_clock(params, gpu, supply_c, flow_l_per_min, load, f); };
  const RackThermal full = at(1.0);
  if (load.busy_gpus == 0 || params.clock_at(full.gpu_temp_c) >= 1.0) return full; // not throttled
  const double f_min = params.min_clock();
  const RackThermal deepest = at(f_min);
  if (!std::isfinite(deepest.gpu_temp_c) || params.clock_at(deepest.gpu_temp_c) <= f_min) return deepest;
  // g(f) = c(T(f)) − f is decreasing: g(f_min) > 0 > g(1).
  double lo = f_min;
  double hi = 1.0;
  while (hi - lo > 1e-12) {
    const double mid = 0.5 * (lo + hi);
    if (params.clock_at(at(mid).gpu_temp_c) > mid)
      lo = mid;
    else
      hi = mid;
  }
  return at(lo);
}

} // namespace dcsim::cooling
