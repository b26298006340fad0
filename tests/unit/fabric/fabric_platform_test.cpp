// FabricPlatform on SimGrid: transfer times between racks against hand calculations, failures.
// One engine per process: every TEST_CASE here runs in its own process (catch_discover_tests).
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {

// 4 racks, radix 64 (d = u = 32): one group of 4 racks, 8 rails per leaf -> 9 leaves of 32 GPUs; leaf 0
// holds slots 0-7 of racks 0-3, leaf 1 slots 8-15.
FabricSpec eight_planes() { return make_spec(8, 200, 2, 64); }

} // namespace

TEST_CASE("a transfer between two racks takes bytes / striped bandwidth + path latency", "[fabric][platform]") {
  Bench b(eight_planes());
  REQUIRE(b.graph.plan().leaves() == 9);
  REQUIRE(b.graph.plan().leaf_of(0) == 0);
  REQUIRE(b.graph.plan().leaf_of(72 + 8) == 1);
  // GPU 0 (rack 0, leaf 0) -> GPU 80 (rack 1, slot 8, leaf 1). Striped over 8 planes of 200 Gb/s, the
  // access links carry 8 x 200e9 / 8 = 200e9 B/s; the leaf bundles (32 uplinks x 8 planes, efficiency 1)
  // cannot saturate and are left out of the route. Latency: 4 links x 0.5 us + 3 switches x 600 ns =
  // 3.8 us. CM02 without TCP corrections: t = latency + bytes / bandwidth = 3.8e-6 + 1e9 / 200e9.
  REQUIRE_FALSE(b.fabric->leaf_bundle_in_routes(0));
  const auto t = b.transfer({0}, {80}, 1e9);
  CHECK(t[0] == Approx(3.8e-6 + 1e9 / 200e9).epsilon(1e-9));
}

TEST_CASE("a transfer on one leaf crosses one switch", "[fabric][platform]") {
  Bench b(eight_planes());
  // GPU 0 (rack 0, slot 0) -> GPU 72 (rack 1, slot 0): both on leaf 0 (rail-aligned).
  // Latency 2 links x 0.5 us + 1 switch x 600 ns = 1.6 us.
  const auto t = b.transfer({0}, {72}, 1e9);
  CHECK(t[0] == Approx(1.6e-6 + 1e9 / 200e9).epsilon(1e-9));
}

TEST_CASE("a failed leaf in one of eight planes slows its GPUs to 7/8", "[fabric][platform]") {
  Bench b(eight_planes());
  REQUIRE(b.fabric->fail(Element{ElementKind::LEAF, 0, 0}));
  CHECK(b.fabric->bw_frac(0) == 7.0 / 8);
  // GPU 0's access link now carries 7 planes: 175e9 B/s; GPU 80 (leaf 1) still 200e9 B/s.
  const auto t = b.transfer({0}, {80}, 1e9);
  CHECK(t[0] == Approx(3.8e-6 + 1e9 / 175e9).epsilon(1e-9));
}

TEST_CASE("with one plane a failed leaf makes transfers fail", "[fabric][platform]") {
  Bench b(make_spec(1, 1600, 2, 64));
  REQUIRE(b.fabric->fail(Element{ElementKind::LEAF, 0, 0}));
  CHECK(b.fabric->cut_off(0));
  const auto t = b.transfer({0, 1}, {80, 81}, 1e9);
  CHECK(t[0] == -1); // GPU 0 is on the failed leaf: its access link is off
  CHECK(t[1] == -1); // GPU 1 too (slots 0-7 share leaf 0)
}

TEST_CASE("an oversubscribed leaf shares its uplink bundle", "[fabric][platform]") {
  // Oversubscription 3 at radix 64: d = 48, u = 16. 4 racks: one group, 12 rails per leaf, 6 leaves of 48
  // GPUs. Leaf 0 (slots 0-11 of racks 0-3) has 8 planes x 16 uplinks x 25e9 B/s = 3.2e12 B/s, below its
  // GPUs' 48 x 200e9 = 9.6e12 B/s, so the bundle is in routes. 48 GPUs of leaf 0 sending to 48 GPUs of
  // leaf 1 (slots 12-23) at once share it: 3.2e12 / 48 B/s each, 1e9 B take 0.015 s (+ 3.8 us).
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  REQUIRE(b.graph.plan().leaves() == 6);
  REQUIRE(b.fabric->leaf_bundle_in_routes(0));
  std::vector<int> src, dst;
  for (int rack = 0; rack < 4; ++rack)
    for (int slot = 0; slot < 12; ++slot) {
      src.push_back(rack * 72 + slot);
      dst.push_back(((rack + 1) % 4) * 72 + 12 + slot);
    }
  const auto t = b.transfer(src, dst, 1e9);
  for (double done : t)
    CHECK(done == Approx(3.8e-6 + 1e9 / (3.2e12 / 48)).epsilon(1e-9));
}

TEST_CASE("a failed spine puts the leaf bundles in routes and shares what is left", "[fabric][platform]") {
  // 9 leaves per plane; spines: smallest divisor of u = 32 that is >= ceil(9 * 32 / 64) = 5, i.e. 8, so
  // each leaf has 4 links to each spine. Spine 0 of plane 0 down: every leaf keeps 8 x 32 - 4 = 252 of
  // its 256 uplinks, below its 32 GPUs x 8 ports = 256, so the bundles enter routes. The 32 GPUs of
  // leaf 0 (slots 0-7 of racks 0-3) sending to leaf 1 (slots 8-15) share 252 x 25e9 B/s.
  Bench b(eight_planes());
  REQUIRE(b.graph.plan().spines() == 8);
  REQUIRE_FALSE(b.fabric->leaf_bundle_in_routes(0));
  REQUIRE(b.fabric->fail(Element{ElementKind::SPINE, 0, 0}));
  CHECK(b.fabric->leaf_bundle_in_routes(0));
  CHECK(b.fabric->bw_frac(0) == (7 + 28.0 / 32) / 8);
  std::vector<int> src, dst;
  for (int rack = 0; rack < 4; ++rack)
    for (int slot = 0; slot < 8; ++slot) {
      src.push_back(rack * 72 + slot);
      dst.push_back(((rack + 1) % 4) * 72 + 8 + slot);
    }
  const auto t = b.transfer(src, dst, 1e9);
  for (double done : t)
    CHECK(done == Approx(3.8e-6 + 1e9 / (252 * 25e9 / 32)).epsilon(1e-9));
}

TEST_CASE("three tiers: a transfer across pods crosses five switches", "[fabric][platform]") {
  // Radix 16, one plane of 1,600 Gb/s: d = u = 8, so 4 racks form one group with 2 rails per leaf: 36
  // leaves in pods of 8 (5 pods). GPU 0 (leaf 0, pod 0) -> GPU 143 (rack 1, slot 71: leaf 35, pod 4).
  // Access 1,600 Gb/s = 200e9 B/s; pod bundles (64 uplinks for 64 GPU ports) cannot saturate.
  // Latency 6 links x 0.5 us + 5 switches x 600 ns = 6 us. Within pod 0 (leaf 0 -> leaf 1): 3.8 us.
  Bench b(make_spec(1, 1600, 3, 16));
  REQUIRE(b.graph.plan().pods() == 5);
  REQUIRE(b.graph.plan().leaf_of(143) == 35);
  REQUIRE_FALSE(b.fabric->pod_bundle_in_routes(0));
  const auto t = b.transfer({0, 1}, {143, 74}, 1e9);
  CHECK(t[0] == Approx(6e-6 + 1e9 / 200e9).epsilon(1e-9));
  CHECK(t[1] == Approx(3.8e-6 + 1e9 / 200e9).epsilon(1e-9));
}
