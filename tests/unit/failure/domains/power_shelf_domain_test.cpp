// The power shelf domain (models/failure/domains/power_shelf_domain.cpp): populations, names, its
// k-out-of-n redundancy and the outage rate it adds to a job, built through the registry as a replica does.
#include "models/failure/domain_registry.hpp"
#include "tests/support/failure_modes.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;
using namespace dcsim::failure;

namespace {
hardware::HardwareSpec nvl72(int shelves, int needed) { return test::nvl72_with_shelves(shelves, needed); }
FailureModeSpec shelf_mode(double mtbf_h) {
  FailureModeSpec m;
  m.name = "m";
  m.domain = Domain::POWER;
  m.unit_kind = failure::unit_kind_of(PowerUnit::SHELF);
  m.rate_value = mtbf_h;
  return m;
}
std::unique_ptr<FailureDomain> power_domain(const hardware::HardwareSpec& hw, const hardware::Layout& layout,
                                            std::function<void(int, bool)> rack_power = {}) {
  DomainContext c;
  c.hardware = &hw;
  c.layout = &layout;
  c.hooks.rack_power = std::move(rack_power);
  return domain_entry(Domain::POWER).make(c);
}
} // namespace

TEST_CASE("power shelves exist only in nvl72 racks", "[failure][domain][power]") {
  const hardware::Layout layout(nvl72(8, 7), hardware::ClusterSpec{2});
  hardware::HardwareSpec hgx = nvl72(8, 7);
  hgx.rack.kind = hardware::RackKind::HGX;
  CHECK(power_domain(hgx, layout) == nullptr);
  CHECK(domain_entry(Domain::POWER).unavailable(ScopeContext{hardware::RackKind::HGX, false, false, false},
                                                "power_shelf") == "power_shelf exists only in nvl72 racks");
  CHECK(domain_entry(Domain::POWER).unavailable(ScopeContext{hardware::RackKind::NVL72, false, false, false},
                                                "power_shelf").empty());
}

TEST_CASE("a rack rides through its redundant power shelves and goes down past them", "[failure][domain][power]") {
  const auto hw = nvl72(8, 6); // two shelves of redundancy
  const hardware::Layout layout(hw, hardware::ClusterSpec{3});
  std::vector<std::pair<int, bool>> changes;
  const auto domain = power_domain(hw, layout, [&](int rack, bool down) { changes.emplace_back(rack, down); });
  FailureDomain& power = *domain;
  const FailureModeSpec shelf = shelf_mode(1000);
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
  CHECK(changes.size() == 1);
  back.unit = 10;
  power.restore(shelf, back); // 6 up: back
  CHECK(changes == std::vector<std::pair<int, bool>>{{1, true}, {1, false}});
}

TEST_CASE("a rack's outage rate is the k-out-of-n first-order term", "[failure][domain][power]") {
  const hardware::Layout layout(nvl72(8, 7), hardware::ClusterSpec{2});
  FailureModeSpec shelf = shelf_mode(10000);
  shelf.detect_s = 0;
  shelf.repair_h = 10;
  const std::vector<int> one_rack{0, 1, 71};
  const double l = 1e-4;
  // n = 8, r = 1: C(8,1) (8 - 1) λ (λ D) = 56 λ² D
  CHECK(power_domain(nvl72(8, 7), layout)->job_rate_per_h(shelf, l, one_rack) ==
        Approx(56 * l * l * 10).epsilon(1e-12));
  // r = 0: every shelf failure takes the rack down: n λ per rack, two racks
  CHECK(power_domain(nvl72(8, 8), layout)->job_rate_per_h(shelf, l, {0, 72}) ==
        Approx(2 * 8 * l).epsilon(1e-12));
  // r = 2: C(8,2) (8 - 2) λ (λ D)² = 168 λ³ D²
  CHECK(power_domain(nvl72(8, 6), layout)->job_rate_per_h(shelf, l, one_rack) ==
        Approx(168 * std::pow(l, 3) * 100).epsilon(1e-12));
}
