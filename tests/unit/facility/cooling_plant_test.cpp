// The facility's cooling plant (models/facility/cooling_plant.hpp) on 8 Rubin NVL72 racks in two loops of
// 4, driven through an engine-free sim::EventQueue: every rack's thermal state must be the rack model's
// solution (cooling/rack_thermal.hpp) at design load with its branch's flow and the supply temperature,
// re-solved exactly when a flow or the supply changes, and the facility told which racks and why.
#include "models/facility/cooling_plant.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {

struct Toy {
  hardware::HardwareSpec hardware;
  cooling::CoolingSpec spec;
  std::unique_ptr<hardware::Layout> layout;
  hardware::GpuPowerCurve gpu{1800, 0.15, 0.3, 2.0};
  double base_w = 45360; // 0.35 x 72 x 1,800 W
  sim::EventQueue queue;
  sim::EventLog log;
  std::vector<std::pair<std::vector<int>, int>> resolved; ///< (racks, cause) per re-solve
  std::unique_ptr<facility::CoolingPlant> plant;

  Toy() {
    hardware.rack.kind = hardware::RackKind::NVL72;
    hardware.rack.gpus = 72;
    hardware.rack.spare_gpus = 8;
    spec.racks_per_loop = 4;
    spec.supply_c = 45; // the scenario's default supply
    spec.facility_excursion_k = 15;
    spec.rack_flow_l_per_min = 244; // 1.5 L/min per kW of the 162.7 kW design power
    spec.thermal.coolant = cooling::Coolant::propylene_glycol(0.25);
    spec.thermal.curve = {{92, 0.8}, {95, 0.5}}; // the scenario's default throttle curve
    layout = std::make_unique<hardware::Layout>(hardware, hardware::ClusterSpec{8});
    plant = std::make_unique<facility::CoolingPlant>(
        spec, *layout, gpu, base_w, queue, log,
        [this](const std::vector<int>& racks, int cause) { resolved.emplace_back(racks, cause); });
  }
  /// The rack model's answer at design load (64 busy, 8 spares idle) with `flow` at `supply_c`.
  cooling::RackThermal expected(double supply_c, double flow) const {
    return cooling::solve_rack(spec.thermal, gpu, supply_c, flow, {64, 8, base_w});
  }
};

} // namespace

TEST_CASE("cooling plant: solves every rack at t = 0 with the supply temperature, once",
          "[unit][facility][cooling]") {
  Toy t;
  t.plant->start(/*cause=*/7);
  CHECK(t.resolved.empty()); // an event at t = 0, after the jobs start
  t.queue.run_until(0);
  REQUIRE(t.resolved.size() == 1);
  CHECK(t.resolved[0].first == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(t.resolved[0].second == 7);
  const auto want = t.expected(t.plant->supply_c(), 244);
  REQUIRE(want.clock_frac == 1.0); // 45 C supply: no throttling
  CHECK(t.plant->thermal(5).gpu_temp_c == Approx(want.gpu_temp_c));
  CHECK(t.plant->throttled().empty());
  t.queue.run_until(sim::hours_to_ticks(48)); // a constant supply: nothing re-solved
  CHECK(t.resolved.size() == 1);
}

TEST_CASE("cooling plant: an excursion throttles every rack, its end releases them, one event per loop",
          "[unit][facility][cooling]") {
  Toy t;
  t.plant->start(7);
  t.queue.run_until(0);
  // Supply 45 C; the excursion adds 15 K: 60 C, where the hottest GPU would reach 60 + 9.96 + 19.8 =
  // 89.8 C at full clock (above throttle_c = 87 C): the rack settles on the throttle curve.
  const double base_c = t.plant->supply_c();
  CHECK(base_c == 45);
  const auto hot = t.expected(base_c + 15, 244);
  REQUIRE(hot.clock_frac < 1.0);
  REQUIRE(!hot.cannot_cool);
  t.plant->excursion(+1, /*cause=*/3);
  CHECK(t.plant->supply_c() == Approx(base_c + 15));
  CHECK(t.plant->throttled().size() == 8);
  CHECK(t.plant->thermal(0).clock_frac == Approx(hot.clock_frac));
  CHECK(t.resolved.back().second == 3);
  t.plant->excursion(-1, 7);
  CHECK(t.plant->throttled().empty());
  int starts = 0, ends = 0;
  for (const auto& e : t.log.records()) {
    starts += e.kind == "throttling_start";
    ends += e.kind == "throttling_end";
  }
  CHECK(starts == 2); // two loops
  CHECK(ends == 2);
}

TEST_CASE("cooling plant: a CDU failure leaves its loop's racks unable to cool, and only those",
          "[unit][facility][cooling]") {
  Toy t;
  t.plant->start(7);
  t.queue.run_until(0);
  t.plant->cdu(1, /*failed=*/true, /*cause=*/2);
  CHECK(t.resolved.back().first == std::vector<int>{4, 5, 6, 7});
  CHECK(t.resolved.back().second == 2);
  CHECK(t.plant->thermal(4).cannot_cool);
  CHECK(t.plant->thermal(7).cannot_cool);
  CHECK(!t.plant->thermal(3).cannot_cool);
  CHECK(t.plant->throttled().empty()); // a rack that cannot be cooled is not "throttled": it is shut down
  t.plant->cdu(1, false, 7);
  CHECK(!t.plant->thermal(4).cannot_cool);
}

TEST_CASE("cooling plant: a valve fault re-solves its rack at the reduced flow",
          "[unit][facility][cooling]") {
  Toy t;
  t.plant->start(7);
  t.queue.run_until(0);
  t.plant->valve(2, true, 1);
  CHECK(t.resolved.back().first == std::vector<int>{2});
  const auto want = t.expected(t.plant->supply_c(), 244 * t.spec.valve_fault_flow_frac);
  CHECK(t.plant->thermal(2).gpu_temp_c == Approx(want.gpu_temp_c));
  CHECK(t.plant->thermal(2).gpu_temp_c > t.plant->thermal(1).gpu_temp_c);
}

TEST_CASE("cooling plant: names of racks and loops", "[unit][facility][cooling]") {
  Toy t;
  CHECK(t.plant->racks_name({4, 5, 6, 7}) == "loop0001");
  CHECK(t.plant->racks_name({1}) == t.layout->rack_name(1));
  CHECK(t.plant->racks_name({1, 2}) == t.layout->rack_name(1) + ".." + t.layout->rack_name(2));
  CHECK(t.plant->unit_racks(5) == std::vector<int>{5});
  t.spec.isolation = cooling::Isolation::LOOP;
  CHECK(t.plant->unit_racks(5) == std::vector<int>{4, 5, 6, 7});
}
