#include "models/cooling/supply_profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace dcsim::cooling {

namespace {
constexpr double DAYS_PER_YEAR = 365.0;
} // namespace

SupplyProfile::SupplyProfile(const CoolingSpec& spec) : spec_(&spec) {
  if (!spec.facility_trace_file.empty() && spec.facility_trace.empty())
    throw std::logic_error("SupplyProfile: the facility water trace file was not read (the tools read it)");
  if (spec.facility_trace.empty() && spec.profile_varies())
    step_ = std::max<sim::Tick>(1, sim::to_ticks(spec.profile_step_s));
  for (const TracePoint& p : spec.facility_trace) {
    dates_.push_back(sim::hours_to_ticks(p.time_h));
    supply_c_.push_back(p.temp_c + spec.cdu_approach_k);
  }
}

double SupplyProfile::at(sim::Tick t) const {
  const CoolingSpec& s = *spec_;
  if (!dates_.empty()) { // the last point dated <= t, or the first point before it
    const auto after = std::upper_bound(dates_.begin(), dates_.end(), t);
    return supply_c_[after == dates_.begin() ? 0 : static_cast<std::size_t>(after - dates_.begin()) - 1];
  }
  if (step_ == 0) return s.supply_c;
  const sim::Tick mid = (t / step_) * step_ + step_ / 2;
  const double hours = sim::to_hours(mid);
  const double hour_of_day = std::fmod(hours, sim::H_PER_DAY);
  const double day = s.start_day + hours / sim::H_PER_DAY;
  const double two_pi = 2.0 * std::numbers::pi;
  return s.supply_c +
         s.daily_amplitude_k * std::cos(two_pi * (hour_of_day - s.daily_peak_h) / sim::H_PER_DAY) +
         s.seasonal_amplitude_k * std::cos(two_pi * (day - s.seasonal_peak_day) / DAYS_PER_YEAR);
}

sim::Tick SupplyProfile::next_change(sim::Tick t) const {
  if (!dates_.empty()) {
    const auto after = std::upper_bound(dates_.begin(), dates_.end(), t);
    return after == dates_.end() ? -1 : *after;
  }
  if (step_ == 0) return -1;
  return (t / step_ + 1) * step_;
}

} // namespace dcsim::cooling
