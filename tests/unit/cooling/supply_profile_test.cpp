// Supply temperature over time: constant, daily profile in steps, facility water trace
// (models/cooling/supply_profile.hpp).
#include "models/cooling/supply_profile.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace dcsim;
using namespace dcsim::cooling;

TEST_CASE("a constant supply never changes", "[unit][cooling]") {
  CoolingSpec s;
  s.supply_c = 42;
  const SupplyProfile p(s);
  CHECK(p.at(0) == 42);
  CHECK(p.at(sim::hours_to_ticks(1000)) == 42);
  CHECK(p.next_change(0) == -1);
}

TEST_CASE("a daily profile is held over steps, evaluated at each step's middle", "[unit][cooling]") {
  CoolingSpec s;
  s.supply_c = 45;
  s.daily_amplitude_k = 4;
  s.daily_peak_h = 15;
  s.profile_step_s = 3600;
  const SupplyProfile p(s);
  // Step [14 h, 15 h): middle 14.5 h: 45 + 4·cos(2π·(14.5 − 15)/24).
  const double expected = 45 + 4 * std::cos(2 * std::numbers::pi * (14.5 - 15) / 24);
  CHECK(p.at(sim::hours_to_ticks(14)) == Approx(expected));
  CHECK(p.at(sim::hours_to_ticks(14.99)) == Approx(expected));
  CHECK(p.next_change(sim::hours_to_ticks(14.2)) == sim::hours_to_ticks(15));
  // Night: the step [2 h, 3 h) is held at its middle, 12.5 h from the peak: 45 + 4·cos(2π·12.5/24) = 41.034.
  CHECK(p.at(sim::hours_to_ticks(2.5)) == Approx(41.0342).margin(1e-4));
}

TEST_CASE("a facility water trace: values held until the next point, plus the CDU approach", "[unit][cooling]") {
  CoolingSpec s;
  s.cdu_approach_k = 3;
  s.facility_trace = {{2, 40}, {5, 50}, {6, 42}};
  const SupplyProfile p(s);
  CHECK(p.at(0) == 43); // before the first point: its value
  CHECK(p.at(sim::hours_to_ticks(2)) == 43);
  CHECK(p.at(sim::hours_to_ticks(5) - 1) == 43);
  CHECK(p.at(sim::hours_to_ticks(5)) == 53);
  CHECK(p.at(sim::hours_to_ticks(100)) == 45);
  CHECK(p.next_change(0) == sim::hours_to_ticks(2));
  CHECK(p.next_change(sim::hours_to_ticks(2)) == sim::hours_to_ticks(5));
  CHECK(p.next_change(sim::hours_to_ticks(6)) == -1);
}
