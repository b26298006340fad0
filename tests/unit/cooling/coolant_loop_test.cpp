// CDU loops: flows with pump, CDU and valve faults, isolation of branches, and each loop's energy balance
// (models/cooling/coolant_loop.hpp).
#include "models/cooling/coolant_loop.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace dcsim::cooling;

namespace {
CoolingSpec spec() {
  CoolingSpec s;
  s.racks_per_loop = 4;
  s.pumps = 3;
  s.pump_capacity_frac = 0.5; // N+1 with N = 2
  s.valve_fault_flow_frac = 0.5;
  s.branch_pressure_drop_kpa = 40;
  s.thermal.coolant = Coolant::propylene_glycol(0.25);
  return s;
}
} // namespace

TEST_CASE("loops serve racks in index order; the last loop may serve fewer", "[unit][cooling]") {
  const CoolingSpec s = spec();
  const CoolantLoops loops(s, 10, 200);
  CHECK(loops.loops() == 3);
  CHECK(loops.loop_of(3) == 0);
  CHECK(loops.loop_of(4) == 1);
  CHECK(loops.loop_racks(2) == 2);
  CHECK(loops.loop_name(2) == "loop0002");
}

TEST_CASE("pump redundancy: N+1 keeps full flow after one loss, then flow drops, then stops", "[unit][cooling]") {
  const CoolingSpec s = spec();
  CoolantLoops loops(s, 8, 200);
  CHECK(loops.loop_flow_frac(0) == 1.0);
  loops.pump_failed(0, 0); // 2 x 0.5 = 1: the redundant pump covers it
  CHECK(loops.loop_flow_frac(0) == 1.0);
  CHECK(loops.flow_l_per_min(1) == 200);
  loops.pump_failed(0, 1); // 1 x 0.5: half the flow to every branch, the loop keeps running
  CHECK(loops.loop_flow_frac(0) == 0.5);
  CHECK(loops.flow_l_per_min(3) == 100);
  CHECK(loops.pressure_drop_kpa(3) == Approx(10)); // 40 kPa x 0.5²
  CHECK(loops.flow_l_per_min(4) == 200);           // the other loop is untouched
  loops.pump_failed(0, 2);
  CHECK(loops.loop_flow_frac(0) == 0.0);
  loops.pump_repaired(0, 2);
  CHECK(loops.loop_flow_frac(0) == 0.5);
  loops.cdu_failed(1);
  CHECK(loops.flow_l_per_min(5) == 0.0);
  loops.cdu_repaired(1);
  CHECK(loops.flow_l_per_min(5) == 200);
}

TEST_CASE("two modes striking the same pumps: a pump works once every fault on it is repaired, a loop "
          "without pumps is down (no error)",
          "[unit][cooling]") {
  // 3 pumps of capacity 0.5. Mode A strikes pumps 0, 1 and 2, mode B strikes pumps 0 and 1 again: five
  // faults on three pumps, none working: φ = 0 (the loop is down), every branch of loop 0 without flow.
  const CoolingSpec s = spec();
  CoolantLoops loops(s, 8, 200);
  for (int pump = 0; pump < 3; ++pump)
    loops.pump_failed(0, pump);
  loops.pump_failed(0, 0);
  loops.pump_failed(0, 1);
  CHECK(loops.pumps_up(0) == 0);
  CHECK(loops.loop_flow_frac(0) == 0.0);
  CHECK(loops.flow_l_per_min(2) == 0.0);
  CHECK(loops.flow_l_per_min(4) == 200); // loop 1 untouched
  // Mode A repairs pumps 0 and 1: both still held by mode B, so still no pump works.
  loops.pump_repaired(0, 0);
  loops.pump_repaired(0, 1);
  CHECK(loops.pumps_up(0) == 0);
  // Mode A repairs pump 2: one pump, half the flow.
  loops.pump_repaired(0, 2);
  CHECK(loops.pumps_up(0) == 1);
  CHECK(loops.flow_l_per_min(2) == 100);
  // Mode B repairs pump 0: two pumps (2 x 0.5), full flow; then pump 1: all three.
  loops.pump_repaired(0, 0);
  CHECK(loops.loop_flow_frac(0) == 1.0);
  loops.pump_repaired(0, 1);
  CHECK(loops.pumps_up(0) == 3);
  CHECK_THROWS(loops.pump_repaired(0, 1)); // no fault left on it
}

TEST_CASE("a valve fault or a closed branch touches only its rack", "[unit][cooling]") {
  const CoolingSpec s = spec();
  CoolantLoops loops(s, 4, 200);
  loops.valve_failed(1);
  CHECK(loops.flow_l_per_min(1) == 100);
  CHECK(loops.flow_l_per_min(0) == 200);
  loops.close_branch(2);
  CHECK(loops.flow_l_per_min(2) == 0);
  CHECK(loops.open_flow_l_per_min(2) == 200);
  CHECK(loops.pressure_drop_kpa(2) == 0);
  CHECK(loops.flow_l_per_min(3) == 200);
  loops.open_branch(2);
  loops.valve_repaired(1);
  CHECK(loops.flow_l_per_min(1) == 200);
  CHECK(loops.flow_l_per_min(2) == 200);
  CHECK_THROWS(loops.open_branch(2));
}

TEST_CASE("every loop's energy balance closes: heat removed = electrical power", "[unit][cooling]") {
  // Four racks with different powers and flows (one valve fault, one closed and off): the mixed return
  // temperature weighs each branch by its mass flow; Q = ṁ_loop·c_p·(T_mix − T_sup) must equal Σ P_r
  // (acceptance: within 0.1%; by construction it closes to rounding).
  const CoolingSpec s = spec();
  CoolantLoops loops(s, 8, 250);
  loops.valve_failed(1);
  loops.close_branch(2);
  loops.pump_failed(1, 0);
  loops.pump_failed(1, 2); // loop 1 at half flow
  const std::vector<double> power_w = {170e3, 150e3, 0, 60e3, 120e3, 175e3, 20e3, 0};
  for (int l = 0; l < loops.loops(); ++l) {
    const LoopReading r = loops.read(l, 45, power_w);
    double electrical = 0;
    for (int k = 0; k < 4; ++k)
      electrical += power_w[static_cast<std::size_t>(4 * l + k)];
    CHECK(r.power_w == electrical);
    CHECK(r.heat_removed_w == Approx(electrical).epsilon(1e-3));
    CHECK(r.heat_removed_w == Approx(electrical).epsilon(1e-9));
  }
  // Loop 0 by hand: flows 250, 125, 0, 250 L/min; rises 170e3/C(250), 150e3/C(125), 60e3/C(250) with
  // C(V) = ρ·V/60000·c_p: T_mix = Σ V_r·T_r / Σ V_r.
  const Coolant& c = s.thermal.coolant;
  const double t0 = 45 + c.rise_k(170e3, 250), t1 = 45 + c.rise_k(150e3, 125), t3 = 45 + c.rise_k(60e3, 250);
  const LoopReading r0 = loops.read(0, 45, power_w);
  CHECK(r0.flow_l_per_min == 625);
  CHECK(r0.return_c == Approx((250 * t0 + 125 * t1 + 250 * t3) / 625));
  // A loop with no flow at all reads the supply temperature and removes nothing.
  loops.cdu_failed(1);
  const LoopReading dead = loops.read(1, 45, std::vector<double>(8, 0.0));
  CHECK(dead.return_c == 45);
  CHECK(dead.heat_removed_w == 0);
}
