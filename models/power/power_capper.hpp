// Power capping within a budget (DSX MaxLPS in spirit), and metering of energy.
//
// A cap is a clock ceiling c ∈ [min_clock, 1] on busy GPUs: a GPU capped at c runs at min(c, f*) where f*
// is its thermal operating point (cooling/rack_thermal.hpp), and draws P_busy(min(c, f*)). Facility power
// P(c) is non-decreasing in every cap, so the policies bisect:
//   uniform   one cap for every busy GPU: the largest c with P(c) ≤ P_avail. Every GPU of a synchronous
//             job then runs at the same clock: no capped GPU is slower than the job's slowest.
//   priority  one cap per job, lowered job by job from the last job of the scenario to the first: job k is
//             capped (down to min_clock) only if capping every later job to min_clock is not enough.
// If even min_clock everywhere exceeds the budget, the caps stay at min_clock and the facility runs over
// budget (reported: power_kw above power_budget_kw in the time series).
// Bisection to 1e-9 of the clock: P(c) ≤ P_avail holds at the returned caps whenever feasible.
#pragma once

#include "sim/units.hpp"

#include <functional>
#include <vector>

namespace dcsim::power {

/// The largest c in [min_clock, 1] with power_at(c) ≤ available_w (min_clock when none).
double uniform_cap(double available_w, double min_clock, const std::function<double(double)>& power_at);

/// Caps per job (index = job), lowered from the last job to the first until power_at(caps) ≤ available_w.
std::vector<double> priority_caps(double available_w, double min_clock, int jobs,
                                  const std::function<double(const std::vector<double>&)>& power_at);

/// Energy of a piecewise-constant power: ∫ P dt, its peak and its mean.
class EnergyMeter {
public:
  /// From `now` on the power is `power_w` (the previous power applied up to now).
  void set(sim::Tick now, double power_w);
  /// Closes the integral at `now` (the current power applied up to now).
  void advance(sim::Tick now) { set(now, power_w_); }
  double power_w() const { return power_w_; }
  double energy_j() const { return energy_j_; }
  /// Highest power held over a positive duration.
  double peak_w() const { return peak_w_; }

private:
  sim::Tick last_ = 0;
  double power_w_ = 0;
  double energy_j_ = 0;
  double peak_w_ = 0;
};

} // namespace dcsim::power
