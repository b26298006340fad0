// The coolant supply temperature over time, piecewise constant (equations in spec.hpp): a constant, a
// daily and seasonal cosine profile held over steps of profile_step_s, or a facility water trace plus the
// CDU approach. Models re-evaluate temperatures only at the dates where it changes (next_change), never
// per time step of their own.
#pragma once

#include "models/cooling/spec.hpp"
#include "sim/units.hpp"

#include <vector>

namespace dcsim::cooling {

class SupplyProfile {
public:
  explicit SupplyProfile(const CoolingSpec& spec);

  /// Supply temperature in effect at `t`, °C (without facility water excursions).
  double at(sim::Tick t) const;
  /// The first date after `t` at which at() may change, or -1 when it never changes again.
  sim::Tick next_change(sim::Tick t) const;

private:
  const CoolingSpec* spec_;
  sim::Tick step_ = 0;           ///< profile steps; 0 for a constant or a trace
  std::vector<sim::Tick> dates_; ///< trace points' dates
  std::vector<double> supply_c_; ///< supply temperature from each trace point on
};

} // namespace dcsim::cooling
