// GPU board power as a function of its state and clock (dynamic voltage and frequency scaling).
//
//   busy at clock fraction f:  P_busy(f) = P_max · (s + (1 − s) · f^k)        W
//   idle (powered, no work):   P_idle    = P_max · i                          W
//   down (failed, isolated):   0 W
// P_max = hardware.gpu.power_w (board power at full load); f = clock ÷ nominal clock in (0, 1];
// s = static_frac: the share of full-load power that does not scale with the clock (leakage, HBM, I/O,
// uncore); k = dvfs_exponent: dynamic power C·V²·f with the voltage falling with the clock gives k ≈ 2–3
// over the DVFS range (k = 3 when V ∝ f; k = 1 at the voltage floor). Both are ESTIMATES (defaults in
// models/power/spec.hpp); the thermal model (models/cooling/rack_thermal.hpp) and the power capping
// (models/power/power_capper.hpp) both use this one relation, so a throttled or capped GPU's clock and
// power always agree.
#pragma once

namespace dcsim::hardware {

struct GpuPowerCurve {
  double max_w = 0;         ///< P_max: board power at full load and nominal clock, W
  double idle_frac = 0;     ///< i: idle power ÷ P_max
  double static_frac = 0;   ///< s: clock-independent share of the full-load power
  double dvfs_exponent = 2; ///< k

  /// P_busy(f), W.
  double busy_w(double clock_frac) const;
  double idle_w() const { return max_w * idle_frac; }
};

} // namespace dcsim::hardware
