// Failure domains: populations, names, the rate a mode adds to a job (lemons included), and the power
// shelf domain's redundancy.
#include "models/failure/failure_domain.hpp"
#include "models/failure/power_shelf_domain.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;
using namespace dcsim::failure;

namespace {
hardware::HardwareSpec nvl72(int shelves, int needed) {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.gpus = 72;
  h.rack.gpus_per_tray = 4;
  h.rack.power_shelves = shelves;
  h.rack.power_shelves_needed = needed;
  return h;
}
FailureModeSpec mode_of(Domain domain, int kind, double mtbf_h) {
  FailureModeSpec m;
  m.name = "m";
  m.domain = domain;
  m.unit_kind = kind;
  m.rate_value = mtbf_h;
  return m;
}
} // namespace

TEST_CASE("a job expects the fleet's mean unit rate, lemons included", "[failure][domain]") {
  const auto hw = nvl72(8, 7);
  const hardware::Layout layout(hw, hardware::ClusterSpec{4});
  const auto domains = make_failure_domains(hw, layout, nullptr, nullptr);
  FailureModeSpec tray = mode_of(Domain::HARDWARE, static_cast<int>(hardware::Scope::TRAY), 1000);
  std::vector<int> gpus;
  for (int g = 0; g < 144; ++g) // two racks: 36 trays
    gpus.push_back(g);
  CHECK(job_failure_rate_per_h({tray}, layout, domains, gpus) == Approx(36.0 / 1000).epsilon(1e-12));
  // 15% lemons failing 6x as often: λ̄ = λ (1 + 0.15 x 5) = 1.75 λ (the AIReSim default the issue cites)
  tray.lemon_frac = 0.15;
  tray.lemon_factor = 6;
  CHECK(job_failure_rate_per_h({tray}, layout, domains, gpus) == Approx(1.75 * 36.0 / 1000).epsilon(1e-12));
  CHECK(domains[static_cast<std::size_t>(Domain::HARDWARE)]->units(tray) == 4 * 18);
  CHECK(domains[static_cast<std::size_t>(Domain::FABRIC)] == nullptr); // no fabric in this scenario
}

TEST_CASE("a rack rides through its redundant power shelves and goes down past them", "[failure][domain][power]") {
  const auto hw = nvl72(8, 6); // two shelves of redundancy
  const hardware::Layout layout(hw, hardware::ClusterSpec{3});
  std::vector<std::pair<int, bool>> changes;
  PowerShelfDomain power(hw.rack, layout, [&](int rack, bool down) { changes.emplace_back(rack, down); });
  const FailureModeSpec shelf = mode_of(Domain::POWER, static_cast<int>(PowerUnit::SHELF), 1000);
  CHECK(power.units(shelf) == 24);
  CHECK(power.unit_name(shelf, 8 + 5) == "rack0001/shelf5");
  auto fail = [&](int unit) {
    Failure f;
    f.unit = unit;
    std::vector<int> cut;
    power.strike(shelf, f, cut);
    return cut;
  };
  CHECK(fail(8).empty());
  CHECK(fail(9).empty());
  const auto cut = fail(10); // the third shelf of rack 1: 5 < 6 needed
  REQUIRE(cut.size() == 72);
  CHECK(cut.front() == 72);
  CHECK(cut.back() == 143);
  CHECK(fail(11).empty()); // already down
  CHECK(changes == std::vector<std::pair<int, bool>>{{1, true}});
  Failure back;
  back.unit = 11;
  power.restore(shelf, back); // 5 up: still down
  CHECK(power.rack_down(1));
  back.unit = 10;
  power.restore(shelf, back); // 6 up: back
  CHECK_FALSE(power.rack_down(1));
  CHECK(changes == std::vector<std::pair<int, bool>>{{1, true}, {1, false}});
}

TEST_CASE("a rack's outage rate is the k-out-of-n first-order term", "[failure][domain][power]") {
  const hardware::Layout layout(nvl72(8, 7), hardware::ClusterSpec{2});
  FailureModeSpec shelf = mode_of(Domain::POWER, static_cast<int>(PowerUnit::SHELF), 10000);
  shelf.detect_s = 0;
  shelf.repair_h = 10;
  const std::vector<int> one_rack{0, 1, 71};
  const double l = 1e-4;
  // n = 8, r = 1: C(8,1) (8 - 1) λ (λ D) = 56 λ² D
  CHECK(PowerShelfDomain(nvl72(8, 7).rack, layout).job_rate_per_h(shelf, l, one_rack) ==
        Approx(56 * l * l * 10).epsilon(1e-12));
  // r = 0: every shelf failure takes the rack down: n λ per rack, two racks
  CHECK(PowerShelfDomain(nvl72(8, 8).rack, layout).job_rate_per_h(shelf, l, {0, 72}) ==
        Approx(2 * 8 * l).epsilon(1e-12));
  // r = 2: C(8,2) (8 - 2) λ (λ D)² = 168 λ³ D²
  CHECK(PowerShelfDomain(nvl72(8, 6).rack, layout).job_rate_per_h(shelf, l, one_rack) ==
        Approx(168 * std::pow(l, 3) * 100).epsilon(1e-12));
}
