// Link utilisation per tier (models/fabric/link_utilisation.hpp) against hand-computed loads.
// One engine per process: every TEST_CASE here runs in its own process (catch_discover_tests).
//
// Bench: 4 NVL72 racks on 8 planes of 200 Gb/s ports, radix 64, oversubscription 3: d = 48, u = 16,
// 6 leaves of 48 GPUs (leaf l holds slots 12l..12l+11 of every rack). Access link per GPU and direction:
// 8 × 25e9 = 2e11 B/s; leaf bundle per direction 8 × 16 × 25e9 = 3.2e12 B/s. 288 GPUs: 576 access
// links; 6 leaves: 12 leaf–spine links; two tiers: no spine_core tier.
#include "models/fabric/link_utilisation.hpp"
#include "models/fabric/shared_fabric.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {

constexpr double ACCESS_BYTES_PER_S = 8 * 25e9;
constexpr double BUNDLE_BYTES_PER_S = 8 * 16 * 25e9;

/// One DP ring over `racks` domains of 12 GPUs each: domain d is rack racks[d], slots from first[d]
/// (12 consecutive slots: one leaf).
JobTraffic ring(const std::vector<int>& racks, const std::vector<int>& first, double local_s, double alone_s) {
  JobTraffic t;
  for (std::size_t d = 0; d < racks.size(); ++d)
    for (int s = 0; s < 12; ++s)
      t.rank_gpus.push_back(racks[d] * 72 + first[d] + s);
  t.local_s = local_s;
  t.phases.push_back({FlowPattern::RING, static_cast<int>(racks.size()), 12, alone_s});
  t.key = 1;
  return t;
}

const TierUtilisation& tier(const std::vector<TierUtilisation>& all, LinkTier t) {
  for (const auto& u : all)
    if (u.tier == t) return u;
  FAIL("tier missing");
  return all.front();
}

} // namespace

TEST_CASE("weighted quantiles of a known set of link loads", "[fabric][utilisation]") {
  WeightedQuantiles w;
  for (int i = 1; i <= 100; ++i)
    w.add(i / 100.0, 1.0);
  CHECK(w.quantile(0.5) == Approx(0.50).margin(1e-12));
  CHECK(w.quantile(0.99) == Approx(0.99).margin(1e-12));
  CHECK(w.max() == 1.0);
  CHECK(w.mean() == Approx(0.505).epsilon(1e-12));
  // Weighted: 0.2 held three times as long as 0.8.
  WeightedQuantiles t;
  t.add(0.8, 1.0);
  t.add(0.2, 3.0);
  CHECK(t.quantile(0.5) == Approx(0.2).margin(1e-12));
  CHECK(t.quantile(0.75) == Approx(0.2).margin(1e-12)); // exactly 3/4 of the weight is at 0.2
  CHECK(t.quantile(0.99) == Approx(0.8).margin(1e-12));
  CHECK(t.mean() == Approx((0.2 * 3 + 0.8) / 4).epsilon(1e-12));
  CHECK(WeightedQuantiles().quantile(0.5) == 0.0);
}

TEST_CASE("one ring alone loads its access links and leaf uplinks by rate times duty over capacity",
          "[fabric][utilisation]") {
  // Ring of 2 domains: rack 0 slots 0-11 (leaf 0), rack 1 slots 12-23 (leaf 1). 12 flows each way
  // between the leaves, each at its access rate 2e11 (12 × 2e11 = 2.4e12 < 3.2e12: not bundle-bound).
  // Local 1 s, phase 0.5 s alone: duty 1/3. A member's access link (up and down): 2e11 · (1/3) / 2e11
  // = 1/3. Leaf 0's uplink bundle: 12 · 2e11 · (1/3) / 3.2e12 = 0.25; likewise leaf 1's up, and both
  // down halves.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  REQUIRE(b.fabric->platform().link_bandwidth(b.fabric->access_link(0)) == Approx(ACCESS_BYTES_PER_S));
  REQUIRE(b.fabric->platform().link_bandwidth(b.fabric->leaf_bundle(0)) == Approx(BUNDLE_BYTES_PER_S));
  LinkUtilisation u(*b.fabric, 1.0);
  u.set_job(0, ring({0, 1}, {0, 12}, 1.0, 0.5));
  u.advance(0);
  const auto links = u.link_utilisation();
  CHECK(links.at(b.fabric->access_duplex(0).up) == Approx(1.0 / 3).epsilon(1e-9));
  CHECK(links.at(b.fabric->access_duplex(0).down) == Approx(1.0 / 3).epsilon(1e-9));
  CHECK(links.at(b.fabric->access_duplex(72 + 12).up) == Approx(1.0 / 3).epsilon(1e-9));
  CHECK(links.at(b.fabric->access_duplex(72 + 0).up) == 0.0); // not the job's
  for (int leaf : {0, 1}) {
    CHECK(links.at(b.fabric->leaf_bundle_duplex(leaf).up) == Approx(0.25).epsilon(1e-9));
    CHECK(links.at(b.fabric->leaf_bundle_duplex(leaf).down) == Approx(0.25).epsilon(1e-9));
  }
  CHECK(links.at(b.fabric->leaf_bundle_duplex(2).up) == 0.0);
  // The tiers now: access 48 of 576 links at 1/3; leaf_spine 4 of 12 at 0.25.
  const TierUtilisation access = u.tier_now(LinkTier::ACCESS), leaf = u.tier_now(LinkTier::LEAF_SPINE);
  CHECK(access.links == 576);
  CHECK(access.p50_frac == 0.0);
  CHECK(access.p99_frac == Approx(1.0 / 3).margin(1e-6)); // rank ⌈0.99·576⌉ = 571 > 528 idle links
  CHECK(access.max_frac == Approx(1.0 / 3).epsilon(1e-9));
  CHECK(access.mean_frac == Approx(48.0 / 576 / 3).epsilon(1e-9));
  CHECK(leaf.links == 12);
  CHECK(leaf.p50_frac == 0.0);
  CHECK(leaf.p99_frac == Approx(0.25).margin(1e-6));
  // Over time: 10 s loaded, then the job leaves for 20 s. Leaf tier: 0.25 on 4 links × 10 s out of
  // 12 links × 30 s: p50 0, p99 0.25 (the idle weight 320 of 360 is below 0.99), mean 0.25 · 40/360.
  u.advance(10);
  u.remove_job(0);
  u.advance(10);
  u.advance(30);
  const auto summary = u.summary();
  CHECK(summary.size() == 2); // no spine_core tier on two tiers
  const TierUtilisation& lt = tier(summary, LinkTier::LEAF_SPINE);
  CHECK(lt.p50_frac == 0.0);
  CHECK(lt.p99_frac == Approx(0.25).margin(1e-6));
  CHECK(lt.max_frac == Approx(0.25).epsilon(1e-9));
  CHECK(lt.mean_frac == Approx(0.25 * 40 / 360).epsilon(1e-9));
  // Points: loaded at 0, idle at 10 (a point per tier each time).
  REQUIRE(u.points().size() == 4);
  CHECK(u.points()[2].time_s == 10.0);
  CHECK(u.points()[2].at.max_frac == 0.0);
  // The same GPUs and flows with a longer phase (a slower clock: 1 s alone): the rates are reused, the
  // duty is 1/2: access 2e11 · (1/2) / 2e11 = 0.5, leaf bundle 12 · 2e11 · (1/2) / 3.2e12 = 0.375.
  u.set_job(0, ring({0, 1}, {0, 12}, 1.0, 0.5));
  u.set_job(0, ring({0, 1}, {0, 12}, 1.0, 1.0));
  u.advance(31);
  CHECK(u.link_utilisation().at(b.fabric->access_duplex(0).up) == Approx(0.5).epsilon(1e-9));
  CHECK(u.link_utilisation().at(b.fabric->leaf_bundle_duplex(0).up) == Approx(0.375).epsilon(1e-9));
}

TEST_CASE("two jobs filling one oversubscribed bundle sum to its capacity, not to twice it",
          "[fabric][utilisation][sharing]") {
  // P: 4 domains alternating leaf 0 / leaf 1 (racks 0, 2 slots 0-11; racks 1, 3 slots 12-23): its ring
  // sends 24 flows up leaf 0's bundle (from racks 0 and 2) and 24 down leaf 1's, and the same the
  // other way: alone 3.2e12/24 = 1.33e11 per flow (< 2e11: bundle-bound), each bundle half full while
  // the phase runs. Q: the other GPUs of leaves 0 and 1 (racks 1, 3 slots 0-11; racks 0, 2 slots
  // 12-23), the same. Together 48 flows per half: each ring at half its rate.
  // No local time (every step is the ring), duty-cycle sharing: factor 1 + 1·(2 − 1) = 2, T = 2t: each
  // job loads the bundle by 3.2e12 · t / 2t, u = 0.5 each, 1.0 together (2.0 without the factor).
  // Local = t, aligned play: both phases always together, factor 2, T = 3t: u = 1/3 each, 2/3 together.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  const int up0 = b.fabric->leaf_bundle_duplex(0).up;
  for (const auto& [overlap, local, expected] :
       {std::tuple{PhaseOverlap::DUTY_CYCLE, 0.0, 1.0}, std::tuple{PhaseOverlap::ALIGNED, 1.0, 2.0 / 3}}) {
    const JobTraffic p = ring({0, 1, 2, 3}, {0, 12, 0, 12}, local, 1.0);
    JobTraffic q = ring({1, 0, 3, 2}, {0, 12, 0, 12}, local, 1.0);
    q.key = 2;
    LinkUtilisation u(*b.fabric, 1.0);
    u.set_job(0, p);
    u.advance(0);
    CHECK(u.link_utilisation().at(up0) == Approx(1.0 / (1 + local)).epsilon(1e-9)); // alone: full while it runs
    SharedFabric net(*b.fabric, overlap, 1);
    net.set_job(0, p);
    net.set_job(1, q);
    net.resolve();
    REQUIRE(net.component_size(0) == 2);
    CHECK(net.factors(0)[0] == Approx(2.0).epsilon(1e-6));
    u.set_job(1, q);
    for (int j : {0, 1})
      u.set_factors(j, net.factors(j));
    u.advance(1);
    const auto links = u.link_utilisation();
    INFO("overlap " << phase_overlap_name(overlap));
    CHECK(links.at(up0) == Approx(expected).epsilon(1e-6));
    CHECK(links.at(b.fabric->leaf_bundle_duplex(1).down) == Approx(expected).epsilon(1e-6));
    CHECK(links.at(up0) <= 1.0 + 1e-9);
    CHECK(u.tier_now(LinkTier::LEAF_SPINE).max_frac == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("a failed plane lowers the capacity under the same load", "[fabric][utilisation]") {
  // The 2-domain ring of the first test; leaf 0 of plane 0 down: leaf 0's bundle keeps 7 of 8 planes
  // (2.8e12) and the members on leaf 0 keep 7 of 8 ports (1.75e11 each). Members on leaf 0 now bound
  // the ring: 12 flows at 1.75e11 · (1/3) / 2.8e12 = 0.25 on leaf 0's bundle (the same share: both
  // lost one plane), and a leaf-1 member's access link carries 1.75e11 · (1/3) / 2e11 = 0.2917.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  LinkUtilisation u(*b.fabric, 1.0);
  u.set_job(0, ring({0, 1}, {0, 12}, 1.0, 0.5));
  u.advance(0);
  REQUIRE(b.fabric->fail(Element{ElementKind::LEAF, 0, 0}));
  u.capacities_changed();
  u.advance(1);
  const auto links = u.link_utilisation();
  CHECK(links.at(b.fabric->leaf_bundle_duplex(0).up) == Approx(0.25).epsilon(1e-9));
  CHECK(links.at(b.fabric->access_duplex(72 + 12).up) == Approx(1.75e11 / 3 / 2e11).epsilon(1e-9));
}
