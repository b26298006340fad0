// ClosPlan: capacity of radix/tiers, switch counts per tier, rail-optimised leaf mapping, design limits.
#include "models/fabric/clos_plan.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

TEST_CASE("two tiers of radix k attach k^2/2 GPUs per plane", "[fabric][plan]") {
  // d = u = k/2 down ports per leaf and at most k leaves (one per spine port): k * k/2.
  CHECK(ClosPlan::capacity(512, 2, 1.0, 1) == 131072);
  CHECK(ClosPlan::capacity(144, 2, 1.0, 1) == 10368);
  CHECK(ClosPlan::capacity(64, 2, 1.0, 1) == 2048);
  // Two ports per GPU in one plane halve it; one tier is one switch.
  CHECK(ClosPlan::capacity(512, 2, 1.0, 2) == 65536);
  CHECK(ClosPlan::capacity(512, 1, 1.0, 1) == 512);
}

TEST_CASE("three tiers of radix k attach k^3/4 GPUs per plane", "[fabric][plan]") {
  // k pods of k/2 leaves, d = k/2 GPUs each: k * k/2 * k/2.
  CHECK(ClosPlan::capacity(16, 3, 1.0, 1) == 16 * 16 * 16 / 4);
  CHECK(ClosPlan::capacity(128, 3, 1.0, 1) == 524288);
  CHECK(ClosPlan::capacity(144, 3, 1.0, 1) == 746496);
  CHECK(ClosPlan::capacity(512, 3, 1.0, 1) == 33554432);
}

TEST_CASE("a full two-tier plane of radix 512 has 512 leaves and 256 spines", "[fabric][plan]") {
  // 16,384 HGX servers x 8 = 131,072 GPUs: groups of d = 256 servers, 8 rails -> 64 groups x 8 leaves.
  const ClosPlan plan(make_spec(1, 200, 2, 512), hgx_layout(16384));
  REQUIRE(plan.ok());
  CHECK(plan.gpus() == 131072);
  CHECK(plan.leaves() == 512);
  CHECK(plan.spines() == 256); // L*u/k = 512*256/512, a divisor of u = 256
  CHECK(plan.cores() == 0);
  CHECK(plan.leaf_down_ports() == 256);
  CHECK(plan.leaf_up_ports() == 256);
  CHECK(plan.max_gpus() == 131072);
}

TEST_CASE("a full two-tier plane of radix 144 has 144 leaves and 72 spines", "[fabric][plan]") {
  for (const auto& layout : {hgx_layout(1296), nvl72_layout(144)}) { // 10,368 GPUs either way
    const ClosPlan plan(make_spec(2, 800, 2, 144), layout);
    REQUIRE(plan.ok());
    CHECK(plan.gpus() == 10368);
    CHECK(plan.leaves() == 144);
    CHECK(plan.spines() == 72);
  }
}

TEST_CASE("full three-tier planes have k^2/2 leaves, k^2/2 spines and k^2/4 cores", "[fabric][plan]") {
  for (const int k : {16, 32}) {
    const int gpus = k * k * k / 4;
    const ClosPlan plan(make_spec(1, 400, 3, k), hgx_layout(gpus / 8));
    REQUIRE(plan.ok());
    CHECK(plan.gpus() == gpus);
    CHECK(plan.leaves() == k * k / 2);
    CHECK(plan.pods() == k);
    CHECK(plan.spines() == k * k / 2);
    CHECK(plan.cores() == k * k / 4);
    CHECK(plan.cores_per_group() == k / 2);
  }
}

TEST_CASE("oversubscription splits leaf ports down:up", "[fabric][plan]") {
  const ClosPlan plan(make_spec(1, 200, 2, 512, 3.0), hgx_layout(3072));
  REQUIRE(plan.ok());
  CHECK(plan.leaf_down_ports() == 384);
  CHECK(plan.leaf_up_ports() == 128);
  CHECK(plan.effective_oversubscription() == 3.0);
  // 3,072 servers in groups of 384: 8 groups x 8 rails; spines: smallest divisor of 128 >= 64*128/512.
  CHECK(plan.leaves() == 64);
  CHECK(plan.spines() == 16);
  CHECK(plan.max_gpus() == 512 * 384);
}

TEST_CASE("rail-optimised mapping of 1,820 NVL72 racks on radix 512", "[fabric][plan]") {
  const ClosPlan plan(make_spec(8, 200, 2, 512), nvl72_layout(1820));
  REQUIRE(plan.ok());
  // 7 full groups of 256 racks (one leaf per rail: 72 leaves) and 28 racks packing 9 rails per leaf.
  REQUIRE(plan.groups().size() == 8);
  CHECK(plan.groups()[0].rails_per_leaf == 1);
  CHECK(plan.groups()[0].leaves == 72);
  CHECK(plan.groups()[7].domains == 28);
  CHECK(plan.groups()[7].rails_per_leaf == 9);
  CHECK(plan.groups()[7].leaves == 8);
  CHECK(plan.leaves() == 512);
  CHECK(plan.spines() == 256);
  // GPU i of every rack of a group is on the rail-i leaf.
  CHECK(plan.leaf_of(5) == 5);               // rack 0, slot 5
  CHECK(plan.leaf_of(255 * 72 + 5) == 5);    // rack 255, slot 5
  CHECK(plan.leaf_of(256 * 72 + 0) == 72);   // rack 256 starts group 1
  CHECK(plan.leaf_of(1819 * 72 + 71) == 511); // last rack, slot 71: leaf 504 + 71/9
  // Every GPU is on exactly one leaf, no leaf has more GPUs than down ports.
  std::vector<int> seen(static_cast<std::size_t>(plan.gpus()), 0);
  for (int l = 0; l < plan.leaves(); ++l) {
    std::vector<int> gpus;
    plan.leaf_gpus(l, gpus);
    CHECK(static_cast<int>(gpus.size()) == plan.leaf_gpu_count(l));
    CHECK(plan.leaf_gpu_count(l) * plan.ports_per_plane() <= plan.leaf_down_ports());
    for (int g : gpus) {
      ++seen[static_cast<std::size_t>(g)];
      CHECK(plan.leaf_of(g) == l);
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == plan.gpus());
}

TEST_CASE("two-tier uplinks reach every spine with the same number of links", "[fabric][plan]") {
  // 18 NVL72 racks on radix 512: one group, 14 rails per leaf -> 6 leaves; spines: smallest divisor of
  // u = 256 that is >= ceil(6 * 256 / 512) = 3, i.e. 4; each leaf has 256 / 4 = 64 links to each spine.
  const ClosPlan plan(make_spec(8, 200, 2, 512), nvl72_layout(18));
  REQUIRE(plan.ok());
  CHECK(plan.leaves() == 6);
  CHECK(plan.spines() == 4);
  for (int l = 0; l < plan.leaves(); ++l) {
    std::vector<int> per_spine(4, 0);
    for (int j = 0; j < plan.leaf_up_ports(); ++j)
      ++per_spine[static_cast<std::size_t>(plan.leaf_uplink_target(l, j))];
    CHECK(per_spine == std::vector<int>{64, 64, 64, 64});
  }
}

TEST_CASE("a design beyond the radix and tiers is an error naming the maximum", "[fabric][plan]") {
  const ClosPlan plan(make_spec(2, 800, 2, 144), nvl72_layout(1820));
  REQUIRE_FALSE(plan.ok());
  REQUIRE(plan.problems().size() == 1);
  CHECK(plan.problems()[0].key == "tiers");
  CHECK(plan.problems()[0].message == "2 tiers of radix-144 switches attach at most 10368 GPUs per plane, but the "
                                      "cluster has 131040: set tiers to 3 (up to 746496 GPUs) or switch_radix to at "
                                      "least 512");
}

TEST_CASE("rail packing that needs more leaves than the tiers connect is an error", "[fabric][plan]") {
  // Radix 200, two tiers: d = 100, at most 200 leaves, 20,000 GPUs. 277 NVL72 racks (19,944 GPUs) fit by
  // ports but not by rails: two groups of 100 racks x 72 leaves + 77 racks x 72 leaves = 216 leaves.
  const ClosPlan plan(make_spec(1, 400, 2, 200), nvl72_layout(277));
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.problems()[0].key == "tiers");
  CHECK(plan.problems()[0].message == "rail-optimised cabling needs 216 leaves per plane (3 groups of up to 100 racks "
                                      "x 72 rails), more than 2 tiers of radix-200 switches connect (200): raise "
                                      "tiers or switch_radix");
}
