// FabricState: failure populations and names, overlapping failures, per-GPU remaining bandwidth.
#include "models/fabric/clos_plan.hpp"
#include "models/fabric/fabric_state.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {
// 16 NVL72 racks (1,152 GPUs), 8 planes of 200G, radix 64 (d = u = 32): one group, 2 rails per leaf,
// 36 leaves; spines: smallest divisor of 32 >= ceil(36 * 32 / 64) = 18, i.e. 32 (one link per leaf).
ClosPlan small_plan(int planes = 8, int nic_ports = 0, int radix = 64) {
  return ClosPlan(make_spec(planes, 1600.0 / (nic_ports > 0 ? nic_ports : planes), 2, radix, 1.0, nic_ports),
                  nvl72_layout(16));
}
} // namespace

TEST_CASE("failure populations, unit numbers and names", "[fabric][state]") {
  const ClosPlan plan = small_plan();
  REQUIRE(plan.ok());
  REQUIRE(plan.leaves() == 36);
  REQUIRE(plan.spines() == 32);
  const FabricState s(plan);
  CHECK(s.unit_count(ElementKind::NIC_PORT) == 1152 * 8);
  CHECK(s.unit_count(ElementKind::LEAF) == 36 * 8);
  CHECK(s.unit_count(ElementKind::SPINE) == 32 * 8);
  CHECK(s.unit_count(ElementKind::CORE) == 0);
  CHECK(s.unit_count(ElementKind::LINK) == (1152 + 36 * 32) * 8);

  const Element port = s.element(ElementKind::NIC_PORT, 1152 * 3 + 5);
  CHECK(port.plane == 3);
  CHECK(port.index == 5);
  CHECK(s.name(port) == "rack0000/tray01/gpu1/plane3/port0");
  CHECK(s.name(s.element(ElementKind::LEAF, 36 * 2 + 7)) == "plane2/leaf0007");
  CHECK(s.name(Element{ElementKind::LINK, 0, 1152 + 32 * 3 + 4}) == "plane0/leaf0003/up004");
  CHECK(s.name(Element{ElementKind::LINK, 1, 72}) == "rack0001/tray00/gpu0/plane1/cable0");
  CHECK_THROWS_AS(s.element(ElementKind::LEAF, 36 * 8), std::out_of_range);
  CHECK_THROWS_AS(s.name(Element{ElementKind::SPINE, 8, 0}), std::out_of_range);
}

TEST_CASE("overlapping failures of one element need as many restores", "[fabric][state]") {
  const ClosPlan plan = small_plan();
  FabricState s(plan);
  const Element leaf{ElementKind::LEAF, 0, 0};
  CHECK(s.fail(leaf));
  CHECK_FALSE(s.fail(leaf));
  CHECK_FALSE(s.restore(leaf));
  CHECK(s.is_down(leaf));
  CHECK(s.bw_frac(0) == 7.0 / 8);
  CHECK(s.restore(leaf));
  CHECK_FALSE(s.is_down(leaf));
  CHECK(s.bw_frac(0) == 1.0);
  CHECK_THROWS_AS(s.restore(leaf), std::logic_error);
}

TEST_CASE("NIC ports: two ports in one plane lose half each", "[fabric][state]") {
  // 1 plane, 2 ports of 800G per GPU, radix 128 (d = 64 = 32 racks x 2 ports).
  const ClosPlan plan = small_plan(1, 2, 128);
  REQUIRE(plan.ok());
  REQUIRE(plan.ports_per_plane() == 2);
  FabricState s(plan);
  CHECK(s.gpu_ports(7) == 2);
  s.fail(Element{ElementKind::NIC_PORT, 0, 7 * 2 + 1});
  CHECK(s.bw_frac(7) == 0.5);
  CHECK(s.gpu_ports(7) == 1);
  CHECK_FALSE(s.cut_off(7));
  // The cable of the other port (LINK index = port index) cuts the GPU off.
  s.fail(Element{ElementKind::LINK, 0, 7 * 2});
  CHECK(s.bw_frac(7) == 0.0);
  CHECK(s.cut_off(7));
  CHECK(s.gpu_ports(7) == 0);
  CHECK(s.bw_frac(6) == 1.0);
}

TEST_CASE("a spine or an uplink costs its share of one plane", "[fabric][state]") {
  const ClosPlan plan = small_plan();
  FabricState s(plan);
  // Spine 0 of plane 0 holds 1 of each leaf's 32 uplinks: every GPU keeps (7 + 31/32) / 8.
  const Element spine{ElementKind::SPINE, 0, 0};
  const Affected a = s.affected(spine);
  CHECK(a.gpus.size() == 1152);
  CHECK(a.leaves.size() == 36);
  s.fail(spine);
  for (int g : {0, 500, 1151})
    CHECK(s.bw_frac(g) == Approx((7 + 31.0 / 32) / 8).epsilon(1e-12));
  CHECK(s.leaf_up(0) == 8 * 32 - 1);
  s.restore(spine);
  // Uplink 3 of leaf 5 in plane 2: only leaf 5's 32 GPUs lose 1/32 of one plane.
  const Element up{ElementKind::LINK, 2, 1152 + 5 * 32 + 3};
  CHECK(s.affected(up).gpus.size() == 32);
  s.fail(up);
  std::vector<int> on_leaf;
  plan.leaf_gpus(5, on_leaf);
  CHECK(s.bw_frac(on_leaf[0]) == Approx((7 + 31.0 / 32) / 8).epsilon(1e-12));
  CHECK(s.bw_frac(0) == 1.0);
}

TEST_CASE("three tiers: spines and cores cost their share of a pod's uplinks", "[fabric][state]") {
  // k = 16, full: 16 pods of 8 leaves, 8 spines per pod with 8 uplinks each, 8 core groups of 8.
  const ClosPlan plan(make_spec(1, 400, 3, 16), hgx_layout(128));
  REQUIRE(plan.ok());
  FabricState s(plan);
  CHECK(s.unit_count(ElementKind::LINK) == 1024 + 128 * 8 + 128 * 8);
  CHECK(s.pod_up(0) == 64);
  // Core 0 (group 0) receives uplink 0 of spine 0 of every pod: each pod keeps 63 of 64 uplinks.
  s.fail(Element{ElementKind::CORE, 0, 0});
  CHECK(s.pod_up(3) == 63);
  CHECK(s.bw_frac(0) == Approx(63.0 / 64).epsilon(1e-12));
  s.restore(Element{ElementKind::CORE, 0, 0});
  // Spine 0 of pod 0: pod 0's leaves lose 1 of 8 uplinks and the pod 8 of its 64: 7/8 for pod 0.
  s.fail(Element{ElementKind::SPINE, 0, 0});
  CHECK(s.bw_frac(0) == Approx(7.0 / 8).epsilon(1e-12));
  CHECK(s.bw_frac(1023) == 1.0);
  CHECK(s.name(Element{ElementKind::LINK, 0, 1024 + 1024 + 8 * 9 + 2}) == "plane0/spine0009/up002");
}
