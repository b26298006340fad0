// Steady-state temperatures of one rack on its coolant branch, and the GPUs' thermal throttling.
//
// A rack is a branch of its CDU loop: coolant enters at the loop's supply temperature T_sup and leaves
// warmed by the whole rack's electrical power (100% liquid cooled: every watt ends in the coolant).
//   P_rack   = P_base + n_busy · P_busy(f) + n_idle · P_idle                   W
//   T_ret    = T_sup + P_rack / (ṁ · c_p)                                      °C   (coolant.hpp)
//   T_gpu    = T_ret + P_busy(f) · R_th                                        °C
// T_gpu is the hottest GPU: on the branch's outlet end, at the return temperature, heated above its
// coolant by its own power through R_th (junction to coolant, K/W, an ESTIMATE: cold plates of 1–2 kW
// accelerators are specified at ~0.01–0.02 K/W). P_busy(f) is the DVFS relation of
// hardware/gpu_power.hpp at clock fraction f.
//
// Throttling: the GPU's thermal controller lowers the clock as the temperature rises, by a configurable
// piecewise-linear curve  f = c(T): 1 up to throttle_c, then through the curve's points (temp_c,
// clock_frac), constant after the last point. Lowering the clock lowers the power and so the
// temperature: the operating point is the fixed point  f* = c(T_gpu(f*)).  T_gpu(f) rises with f and
// c(T) falls with T, so g(f) = c(T_gpu(f)) − f is decreasing and the fixed point is unique; it is found
// by bisection on [f_min, 1] (f_min = the curve's last clock_frac) to 1e-12. A throttled GPU is a
// straggler: a synchronous job runs at its slowest GPU's clock.
// Emergency shutdown: a rack whose hottest GPU would stay above shutdown_c even at f_min, or whose branch
// has no flow while it draws power, cannot be cooled (`cannot_cool`): the cooling system shuts it down.
//
// Caps: a power cap holds the clock at f ≤ cap; since T_gpu rises with f, the operating point under a
// cap is min(cap, f*) (if f* ≤ cap the cap does not bind; else at f = cap the controller allows
// c(T_gpu(cap)) ≥ c(T_gpu(f*)) = f* > cap). So f* is computed once, without caps.
#pragma once

#include "models/cooling/coolant.hpp"
#include "models/hardware/gpu_power.hpp"

#include <vector>

namespace dcsim::cooling {

struct ThrottlePoint {
  double temp_c = 0;
  double clock_frac = 1;
};

struct ThermalParams {
  Coolant coolant;
  double thermal_resistance_k_per_w = 0.011; ///< R_th, GPU junction to coolant
  double throttle_c = 87;                    ///< the clock starts to drop above this GPU temperature
  std::vector<ThrottlePoint> curve; ///< above throttle_c, temperatures increasing, clocks non-increasing
  double shutdown_c = 100;          ///< emergency shutdown above this GPU temperature

  /// c(T): the clock fraction the thermal controller allows at GPU temperature `gpu_temp_c`.
  double clock_at(double gpu_temp_c) const;
  /// f_min: the deepest throttle (the curve's last clock fraction).
  double min_clock() const { return curve.empty() ? 1.0 : curve.back().clock_frac; }
};

/// What a rack draws: busy GPUs (at the clock being solved for), idle GPUs and the non-GPU base.
struct RackLoad {
  int busy_gpus = 0;
  int idle_gpus = 0;
  double base_w = 0;
};

struct RackThermal {
  double clock_frac = 1;    ///< busy GPUs' clock (1: not throttled)
  double gpu_w = 0;         ///< one busy GPU's power at that clock, W
  double rack_w = 0;        ///< the rack's electrical power = heat into its branch, W
  double return_c = 0;      ///< branch outlet temperature, °C
  double gpu_temp_c = 0;    ///< hottest GPU (busy if any, else idle), °C
  bool cannot_cool = false; ///< above shutdown_c at the deepest throttle, or power without flow
};

/// The rack's state with its busy GPUs at exactly `clock_frac` (no controller).
RackThermal rack_at_clock(const ThermalParams& params, const hardware::GpuPowerCurve& gpu, double supply_c,
                          double flow_l_per_min, const RackLoad& load, double clock_frac);

/// The rack's steady state with the thermal controller: the fixed point f* = c(T_gpu(f*)).
RackThermal solve_rack(const ThermalParams& params, const hardware::GpuPowerCurve& gpu, double supply_c,
                       double flow_l_per_min, const RackLoad& load);

} // namespace dcsim::cooling
