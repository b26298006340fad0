// Coolant properties and the heat a stream carries (models/cooling/coolant.hpp).
#include "models/cooling/coolant.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim::cooling;

TEST_CASE("propylene glycol mixes: table values at 45 C and linear interpolation", "[unit][cooling]") {
  const Coolant water = Coolant::propylene_glycol(0.0);
  CHECK(water.cp_j_per_kg_k == 4180);
  CHECK(water.density_kg_per_m3 == Approx(990.2));
  const Coolant pg25 = Coolant::propylene_glycol(0.25); // CONTEXT §2's Rubin coolant
  CHECK(pg25.cp_j_per_kg_k == Approx(3970));
  CHECK(pg25.density_kg_per_m3 == Approx(1011.6));
  // Half way between the 20% (4030, 1007.6) and 25% (3970, 1011.6) rows.
  const Coolant mid = Coolant::propylene_glycol(0.225);
  CHECK(mid.cp_j_per_kg_k == Approx(4000));
  CHECK(mid.density_kg_per_m3 == Approx(1009.6));
  CHECK(Coolant::propylene_glycol(0.40).cp_j_per_kg_k == Approx(3780));
  CHECK_THROWS(Coolant::propylene_glycol(0.5));
}

TEST_CASE("a Rubin rack at design power warms 25% PG by ~10 K at 1.5 L/min per kW", "[unit][cooling]") {
  // Rack design power 174.96 kW (72 x 1.8 kW GPUs + 0.35 x 129.6 kW base) at 1.5 L/min per kW = 262.44 L/min:
  // ṁ = 1011.6 x 262.44 / 60,000 = 4.42474 kg/s; ṁ·c_p = 17,566.2 W/K; ΔT = 174,960 / 17,566.2 = 9.9600 K,
  // i.e. ~45 °C supply, ~55 °C return (CONTEXT §2).
  const Coolant c = Coolant::propylene_glycol(0.25);
  CHECK(c.mass_flow_kg_per_s(262.44) == Approx(4.4247384));
  CHECK(c.rise_k(174960, 262.44) == Approx(9.960030).epsilon(1e-6));
  CHECK(c.heat_w(262.44, c.rise_k(174960, 262.44)) == Approx(174960).epsilon(1e-12));
  CHECK(c.rise_k(0, 0) == 0);
  CHECK(std::isinf(c.rise_k(1000, 0)));
}
