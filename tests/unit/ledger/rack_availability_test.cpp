// RackAvailability: each rack's down GPU-time integrated at health changes, failures counted per rack.
#include "models/ledger/rack_availability.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace dcsim;
using namespace dcsim::ledger;

TEST_CASE("down GPU-time is the integral of each rack's down GPU count", "[ledger][racks]") {
  RackAvailability racks(3);
  const sim::Tick h = sim::hours_to_ticks(1);
  // Rack 1: one GPU down over [1 h, 4 h), a second over [2 h, 3 h): 3 + 1 = 4 GPU-hours.
  racks.on_health_change(1, false, 1 * h);
  racks.on_health_change(1, false, 2 * h);
  racks.on_health_change(1, true, 3 * h);
  racks.on_health_change(1, true, 4 * h);
  // Rack 2: one GPU down from 5 h to the end (10 h): 5 GPU-hours, counted although never back up.
  racks.on_health_change(2, false, 5 * h);
  CHECK(racks.down(2) == 1);
  const auto down = racks.down_gpu_h(10 * h);
  REQUIRE(down.size() == 3);
  CHECK(down[0] == 0.0);
  CHECK(down[1] == Approx(4.0).epsilon(1e-15));
  CHECK(down[2] == Approx(5.0).epsilon(1e-15));
  CHECK(racks.down_ticks(1, 10 * h) == static_cast<GpuTicks>(4) * h);
}

TEST_CASE("a failure counts once on every rack its GPUs span", "[ledger][racks]") {
  RackAvailability racks(4);
  racks.count_failure(1, 1);
  racks.count_failure(1, 2);
  racks.count_failure(3, 3);
  CHECK(racks.failures() == std::vector<std::uint64_t>{0, 2, 1, 1});
}

TEST_CASE("a GPU coming back that was not down is a bug", "[ledger][racks]") {
  RackAvailability racks(1);
  CHECK_THROWS_AS(racks.on_health_change(0, true, 0), std::logic_error);
}
