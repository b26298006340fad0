// Rack thermal model and the throttling fixed point (models/cooling/rack_thermal.hpp), against
// solutions derived by hand.
#include "models/cooling/rack_thermal.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;
using namespace dcsim::cooling;

namespace {
// A linear DVFS curve makes the fixed point linear: P(f) = 1000·(0.2 + 0.8·f) = 200 + 800·f W.
hardware::GpuPowerCurve linear_gpu() { return hardware::GpuPowerCurve{1000, 0.1, 0.2, 1.0}; }
ThermalParams params() {
  ThermalParams p;
  p.coolant = Coolant::propylene_glycol(0.25);
  p.thermal_resistance_k_per_w = 0.02;
  p.throttle_c = 85;
  p.curve = {{95, 0.5}}; // c(T) = 1 − 0.05·(T − 85) on [85, 95], 0.5 above
  p.shutdown_c = 100;
  return p;
}
// The flow giving ṁ·c_p = 400 W/K.
double flow_for_400_w_per_k(const Coolant& c) { return 400.0 / (c.density_kg_per_m3 * c.cp_j_per_kg_k) * 60000.0; }
} // namespace

TEST_CASE("throttle curve: 1 up to throttle_c, linear between points, constant after the last", "[unit][cooling]") {
  ThermalParams p = params();
  p.curve = {{90, 0.8}, {95, 0.5}};
  CHECK(p.clock_at(80) == 1.0);
  CHECK(p.clock_at(85) == 1.0);
  CHECK(p.clock_at(87.5) == Approx(0.9));
  CHECK(p.clock_at(90) == Approx(0.8));
  CHECK(p.clock_at(92.5) == Approx(0.65));
  CHECK(p.clock_at(120) == Approx(0.5));
  CHECK(p.min_clock() == 0.5);
}

TEST_CASE("an unthrottled rack: return and GPU temperatures by hand", "[unit][cooling]") {
  // 4 busy GPUs at 1,000 W, 2 idle at 100 W, base 800 W: P_rack = 5,000 W; ṁ·c_p = 400 W/K: ΔT = 12.5 K;
  // T_ret = 40 + 12.5 = 52.5 °C; hottest GPU 52.5 + 1,000 x 0.02 = 72.5 °C (< 85: not throttled).
  const ThermalParams p = params();
  const RackThermal r = solve_rack(p, linear_gpu(), 40, flow_for_400_w_per_k(p.coolant), {4, 2, 800});
  CHECK(r.clock_frac == 1.0);
  CHECK(r.rack_w == Approx(5000));
  CHECK(r.return_c == Approx(52.5));
  CHECK(r.gpu_temp_c == Approx(72.5));
  CHECK_FALSE(r.cannot_cool);
  // Energy balance of the branch: the heat the coolant carries is the rack's power.
  CHECK(p.coolant.heat_w(flow_for_400_w_per_k(p.coolant), r.return_c - 40) == Approx(r.rack_w).epsilon(1e-12));
}

TEST_CASE("a throttled rack settles at the fixed point f = c(T(f))", "[unit][cooling]") {
  // 4 busy GPUs, nothing else, supply 60 °C, ṁ·c_p = 400 W/K:
  //   T(f) = 60 + 4·P(f)/400 + 0.02·P(f) = 60 + 0.03·(200 + 800 f) = 66 + 24 f    (T(1) = 90 > 85)
  //   f = 1 − 0.05·(T(f) − 85) = 1 − 0.05·(24 f − 19)  ⇒  2.2 f = 1.95  ⇒  f* = 0.886364, T* = 87.2727 °C
  const ThermalParams p = params();
  const RackThermal r = solve_rack(p, linear_gpu(), 60, flow_for_400_w_per_k(p.coolant), {4, 0, 0});
  CHECK(r.clock_frac == Approx(1.95 / 2.2).epsilon(1e-9));
  CHECK(r.gpu_temp_c == Approx(66 + 24 * 1.95 / 2.2).epsilon(1e-9));
  CHECK(r.gpu_w == Approx(200 + 800 * 1.95 / 2.2).epsilon(1e-9));
  CHECK(p.clock_at(r.gpu_temp_c) == Approx(r.clock_frac).epsilon(1e-9)); // it is a fixed point
  CHECK_FALSE(r.cannot_cool);
}

TEST_CASE("the deepest throttle, and racks that cannot be cooled", "[unit][cooling]") {
  const ThermalParams p = params();
  const double flow = flow_for_400_w_per_k(p.coolant);
  // Supply 80 °C: T(f) = 86 + 24 f; at f_min = 0.5, T = 98 > 95: the clock stays at 0.5, below shutdown (100).
  const RackThermal deep = solve_rack(p, linear_gpu(), 80, flow, {4, 0, 0});
  CHECK(deep.clock_frac == 0.5);
  CHECK(deep.gpu_temp_c == Approx(98));
  CHECK_FALSE(deep.cannot_cool);
  // Supply 83 °C: T(0.5) = 101 > 100: shut down.
  CHECK(solve_rack(p, linear_gpu(), 83, flow, {4, 0, 0}).cannot_cool);
  // No flow while drawing power: shut down; no power and no flow: nothing to cool.
  CHECK(solve_rack(p, linear_gpu(), 40, 0, {4, 0, 0}).cannot_cool);
  CHECK_FALSE(solve_rack(p, linear_gpu(), 40, 0, {0, 0, 0}).cannot_cool);
}

TEST_CASE("rack_at_clock evaluates a capped clock without the controller", "[unit][cooling]") {
  const ThermalParams p = params();
  const RackThermal r = rack_at_clock(p, linear_gpu(), 60, flow_for_400_w_per_k(p.coolant), {4, 0, 0}, 0.5);
  CHECK(r.gpu_w == Approx(600));
  CHECK(r.gpu_temp_c == Approx(66 + 12)); // T(0.5) = 78 °C: below throttle_c, a cap of 0.5 binds
}
