// The shared fabric on the real platform: the engine-free max-min solver against SimGrid's own sharing
// over the same links (unmerged flows), and jobs whose rings meet on an oversubscribed leaf bundle.
// One engine per process: every TEST_CASE here runs in its own process (catch_discover_tests).
//
// Bench: 4 NVL72 racks on 8 planes of 200 Gb/s ports, radix 64, oversubscription 3: d = 48, u = 16,
// 6 leaves of 48 GPUs (leaf l holds slots 12l..12l+11 of every rack), each leaf bundle 8 x 16 x
// 25e9 = 3.2e12 B/s below its GPUs' 48 x 2e11 = 9.6e12 B/s, so every bundle is on routes.
#include "models/fabric/collective_flows.hpp"
#include "models/fabric/ecmp_hash.hpp"
#include "models/fabric/max_min.hpp"
#include "models/fabric/shared_fabric.hpp"
#include "sim/process_pool.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <set>
#include <tuple>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {

constexpr double GPU_BYTES_PER_S = 8 * 25e9;

/// The max-min rates of `flows` over the platform's links, as SimGrid would route them.
std::vector<double> engine_free_rates(const FabricPlatform& fabric, const std::vector<sim::Platform::Flow>& flows) {
  return fabric_rates(fabric, flows);
}

/// Flows between racks with uneven counts per leaf: GPU (rack r, slot s) sends to rack r + 1, slot
/// (7 s + 3 r) mod 60, for s < n_r (n = 48, 30, 17, 5): several bottleneck levels.
std::vector<sim::Platform::Flow> uneven_flows() {
  std::vector<sim::Platform::Flow> flows;
  const int n[4] = {48, 30, 17, 5};
  for (int r = 0; r < 4; ++r)
    for (int s = 0; s < n[r]; ++s)
      flows.push_back({r * 72 + s, (r + 1) % 4 * 72 + (7 * s + 3 * r) % 60, 1e12});
  return flows;
}

} // namespace

TEST_CASE("the engine-free max-min matches SimGrid's sharing on the fabric", "[fabric][sharing]") {
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  REQUIRE(b.fabric->leaf_bundle_in_routes(0));
  const auto flows = uneven_flows();
  const auto mine = engine_free_rates(*b.fabric, flows);
  const auto simgrid = b.fabric->platform().rates_isolated(flows, 1e-3, 1e-3);
  REQUIRE(mine.size() == simgrid.size());
  int distinct = 0;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    CHECK(mine[f] == Approx(simgrid[f]).epsilon(1e-6));
    if (f > 0 && std::abs(mine[f] - mine[f - 1]) > 1e-3 * mine[f]) ++distinct;
  }
  CHECK(distinct > 3); // not a trivial equal split
}

TEST_CASE("the engine-free max-min matches SimGrid after a leaf fails", "[fabric][sharing]") {
  // Leaf 1 of plane 0 down: GPUs on it lose one of 8 ports (access 7/8), its bundle loses a plane.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  REQUIRE(b.fabric->fail(Element{ElementKind::LEAF, 0, 1}));
  const auto flows = uneven_flows();
  const auto mine = engine_free_rates(*b.fabric, flows);
  const auto simgrid = b.fabric->platform().rates_isolated(flows, 1e-3, 1e-3);
  for (std::size_t f = 0; f < flows.size(); ++f)
    CHECK(mine[f] == Approx(simgrid[f]).epsilon(1e-6));
}

namespace {

/// β as the isolated probe computes it (engine-free) and as SimGrid's own sharing gives it (in a child:
/// rates_isolated moves the clock), for every group of one shape of a job on the 4 racks' first 48 GPUs.
std::pair<double, double> probe_beta_both_ways(const FabricPlatform& fabric, FlowPattern pattern, int ranks, int stride) {
  std::vector<int> rank_gpus;
  for (int r = 0; r < 4; ++r)
    for (int s = 0; s < 48; ++s)
      rank_gpus.push_back(r * 72 + s);
  const CollectiveFlows cf = collective_flows(fabric, pattern, ranks, stride, rank_gpus, true);
  REQUIRE(!cf.flows.empty());
  const double mine = collective_beta(cf, fabric_rates(fabric, cf.flows));
  const std::string reply = sim::run_in_child([&] {
    const double beta = collective_beta(cf, fabric.platform().rates_isolated(cf.flows, 1e-3, 1e-3));
    std::string out(sizeof beta, '\0');
    std::memcpy(out.data(), &beta, sizeof beta);
    return out;
  });
  double simgrid = 0;
  std::memcpy(&simgrid, reply.data(), sizeof simgrid);
  return {mine, simgrid};
}

} // namespace

TEST_CASE("the isolated probe's engine-free beta is SimGrid's on rings, all-to-all and pipeline sends, with a leaf down",
          "[fabric][sharing]") {
  // Every bundle is on routes (oversubscription 3), so every group is priced and groups meet on the
  // leaf bundles; leaf 1 of plane 0 down then takes a plane from the GPUs under it and from its bundle.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  for (int failed = 0; failed < 2; ++failed) {
    if (failed == 1) REQUIRE(b.fabric->fail(Element{ElementKind::LEAF, 0, 1}));
    for (const auto& [pattern, ranks, stride] : {std::tuple{FlowPattern::RING, 4, 48}, std::tuple{FlowPattern::RING, 8, 24},
                                                 std::tuple{FlowPattern::ALL_TO_ALL, 96, 1},
                                                 std::tuple{FlowPattern::PAIR, 2, 48}}) {
      const auto [mine, simgrid] = probe_beta_both_ways(*b.fabric, pattern, ranks, stride);
      INFO("pattern " << static_cast<int>(pattern) << " ranks " << ranks << " stride " << stride << " failed " << failed);
      CHECK(mine > 0);
      CHECK(mine == Approx(simgrid).epsilon(1e-9));
    }
  }
}

namespace {

/// A job of `domains` x `per_domain` GPUs: rank d*per_domain + i is rack (first_rack + d), slot
/// slots[i]; its DP ring groups are `domains` ranks per_domain apart (one member per rack).
JobTraffic ring_job(int first_rack, int domains, const std::vector<int>& slots, double local_s, double alone_s,
                    std::uint64_t key) {
  JobTraffic t;
  for (int d = 0; d < domains; ++d)
    for (int s : slots)
      t.rank_gpus.push_back((first_rack + d) % 4 * 72 + s);
  t.local_s = local_s;
  const int per_domain = static_cast<int>(slots.size());
  t.phases.push_back({FlowPattern::RING, domains, per_domain, alone_s});
  t.key = key;
  return t;
}

/// Ranks 0..n-1 on rack 0 slots first0.., ranks n..2n-1 on rack 1 slots first1..; one phase of groups
/// of 2 ranks n apart (0.5 s alone), 1 s of local time.
/// n ranks from slot first0 of rack `rack` and n from slot first1 of the next rack; one phase of
/// `pattern` over the two (0.5 s alone) after 1 s of local work.
JobTraffic two_rack_job(int first0, int first1, int n, FlowPattern pattern, int rack = 0, std::uint64_t key = 1) {
  JobTraffic t;
  for (int s = 0; s < n; ++s)
    t.rank_gpus.push_back(rack * 72 + first0 + s);
  for (int s = 0; s < n; ++s)
    t.rank_gpus.push_back((rack + 1) * 72 + first1 + s);
  t.local_s = 1.0;
  t.phases.push_back({pattern, 2, n, 0.5});
  t.key = key;
  return t;
}

std::vector<int> slots(int first, int count, int shift = 0) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i)
    out.push_back(first + (i + shift) % count);
  return out;
}

} // namespace

TEST_CASE("jobs whose rings share an oversubscribed leaf bundle get its max-min share", "[fabric][sharing]") {
  // Job A: racks 0-1, slots 0-11 of rack 0 (leaf 0) and slots 12-23 of rack 1 (leaf 1): its ring of
  // 2 members (rack 0 slot i <-> rack 1 slot 12+i) sends 12 flows up leaf 0's bundle and 12 down leaf
  // 1's, and back. Job B likewise on racks 2-3. Each alone: 12 flows on a 3.2e12 B/s bundle get
  // min(2e11, 3.2e12/12) = 2e11 (access-bound). Job C: racks 2-3 with 24 members per rack on leaves
  // 0/1: its 24 flows up leaf 0 share with A's 12: 3.2e12/36 = 8.9e10 each, below access.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  const ClosPlan& plan = b.graph.plan();
  REQUIRE(plan.leaf_of(0) == 0);
  REQUIRE(plan.leaf_of(72 + 12) == 1);
  SharedFabric net(*b.fabric, PhaseOverlap::ALIGNED, 1);
  // A as a two-rack job whose rack-1 ranks sit on leaf 1.
  net.set_job(0, two_rack_job(0, 12, 12, FlowPattern::RING));
  net.resolve();
  CHECK(net.component_size(0) == 1);
  CHECK(net.factors(0)[0] == 1.0); // alone: today's figure, no solve
  CHECK(net.solves() == 0);
  // A job on other leaves (slots 24-47: leaves 2-3) shares nothing with A.
  net.set_job(1, ring_job(2, 2, slots(24, 12), 1.0, 0.5, 2));
  net.resolve();
  CHECK(net.component_size(0) == 1);
  CHECK(net.component_size(1) == 1);
  // Job C: racks 2-3, ranks rack 2 slots 0-23 (leaves 0-1), rack 3 slots 24-47 (leaves 2-3); its ring
  // (rank i <-> rank 24 + i) sends 12 flows each way through the bundles of leaves 0, 1, 2 and 3: alone
  // 3.2e12/12 = 2.67e11 > 2e11, access-bound. A adds 12 flows each way on leaves 0 and 1: those four
  // bundle halves carry 24 flows, 3.2e12/24 = 1.33e11 each, and every flow of A and C crosses one of
  // them: both rings move at 1.33e11 against 2e11 alone, a factor 1.5 each. Equal local (1 s) and comm
  // (0.5 s) times, aligned: their comm phases coincide every step (0.75 s each).
  net.set_job(2, two_rack_job(0, 24, 24, FlowPattern::RING, 2, 3));
  const std::vector<int> changed = net.resolve();
  CHECK(net.component_size(0) == 2);
  CHECK(net.component_size(2) == 2);
  CHECK(net.factors(0)[0] == Approx(1.5).epsilon(1e-9));
  CHECK(net.factors(2)[0] == Approx(1.5).epsilon(1e-9));
  CHECK(changed == std::vector<int>{0, 2});
  // C leaves: A is alone again.
  net.remove_job(2);
  CHECK(net.resolve() == std::vector<int>{0});
  CHECK(net.factors(0)[0] == 1.0);
}

TEST_CASE("a failure that puts a leaf bundle on routes joins the jobs that cross it", "[fabric][sharing]") {
  // Non-blocking 8-plane fabric of radix 64 (leaf l holds slots 8l..8l+7 of every rack, 32 uplinks per
  // leaf and plane, 4 to each of 8 spines): no bundle can saturate. Job A: rack 0 slots 0-7 (leaf 0) <->
  // rack 1 slots 8-15 (leaf 1). Job C: rack 2 slots 0-15 (leaves 0-1) <-> rack 3 slots 16-31 (leaves
  // 2-3). Each touches no bundle and is alone. Spines 0-4 of every plane fail: each leaf keeps 12 of
  // its 32 uplinks per plane, below its 32 GPUs' ports, so every leaf bundle is on routes (8 x 12 x
  // 25e9 = 2.4e12 B/s). Alone, each job sends 8 flows up a bundle: 3e11 > 2e11, access-bound. Found
  // again after capacities_changed(), A's 8 and C's 8 flows meet up leaf 0's bundle (and down leaf
  // 1's): 2.4e12 / 16 = 1.5e11 B/s each, a factor 4/3 for both. The spines heal: alone again.
  Bench b(make_spec(8, 200, 2, 64));
  const ClosPlan& plan = b.graph.plan();
  REQUIRE(plan.leaf_of(8) == 1);
  REQUIRE_FALSE(b.fabric->leaf_bundle_in_routes(0));
  SharedFabric net(*b.fabric, PhaseOverlap::ALIGNED, 1);
  net.set_job(0, two_rack_job(0, 8, 8, FlowPattern::RING));
  net.set_job(2, two_rack_job(0, 16, 16, FlowPattern::RING, 2, 3));
  net.resolve();
  CHECK(net.component_size(0) == 1);
  CHECK(net.component_size(2) == 1);
  for (int p = 0; p < 8; ++p)
    for (int k = 0; k < 5; ++k)
      REQUIRE(b.fabric->fail(Element{ElementKind::SPINE, p, k}));
  REQUIRE(b.fabric->leaf_bundle_in_routes(0));
  net.capacities_changed();
  net.resolve();
  CHECK(net.component_size(0) == 2);
  const double factor = GPU_BYTES_PER_S / (8 * 12 * 25e9 / 16);
  REQUIRE(factor == Approx(4.0 / 3.0).epsilon(1e-12));
  CHECK(net.factors(0)[0] == Approx(factor).epsilon(1e-9));
  CHECK(net.factors(2)[0] == Approx(factor).epsilon(1e-9));
  for (int p = 0; p < 8; ++p)
    for (int k = 0; k < 5; ++k)
      b.fabric->restore(Element{ElementKind::SPINE, p, k});
  REQUIRE_FALSE(b.fabric->leaf_bundle_in_routes(0));
  net.capacities_changed();
  net.resolve();
  CHECK(net.component_size(0) == 1);
  CHECK(net.factors(0)[0] == 1.0);
}

TEST_CASE("ecmp_hash: a job alone moves at the pace of its most collided uplink", "[fabric][sharing][ecmp]") {
  // Non-blocking 8-plane fabric (radix 64: 32 uplinks per leaf and plane; no bundle on routes, so the
  // isolated probe gives each connection its GPU's 8 ports, 8c). Job: ranks 0-7 on rack 0 slots 0-7
  // (leaf 0), ranks 8-15 on rack 1 slots 8-15 (leaf 1); pipeline sends r -> r + 8: 8 connections
  // leaf 0 -> leaf 1. Hashed with 8 channels x 1 QP: 8 subflows per connection, subflow i on plane i,
  // each pinned to one of the plane's 32 uplinks of leaf 0 and one of 32 downlinks of leaf 1. An
  // access link (8c) carries 8 subflows: c each at most; an uplink carrying L subflows gives them c/L.
  // The slowest subflow is on the most loaded up- or downlink (L_max, counted here from the hash), so
  // τ = (Q/8)/(c/L_max) against Q/(8c) ideal: factor L_max. Two subflows hashed onto one uplink halve
  // their rate (L_max = 2); a seed with L_max = 2 and one with 3 or more are both checked.
  Bench b(make_spec(8, 200, 2, 64));
  REQUIRE_FALSE(b.fabric->leaf_bundle_in_routes(0));
  const JobTraffic t = two_rack_job(0, 8, 8, FlowPattern::PAIR);
  std::set<int> seen;
  for (std::uint64_t seed = 1; seed < 40 && seen.size() < 2; ++seed) {
    std::map<std::tuple<int, int, int>, int> load; // (plane, uplink, direction) -> subflows
    int l_max = 0;
    for (int r = 0; r < 8; ++r) {
      const int a = t.rank_gpus[static_cast<std::size_t>(r)], bb = t.rank_gpus[static_cast<std::size_t>(r + 8)];
      for (int i = 0; i < 8; ++i) {
        l_max = std::max(l_max, ++load[{i, static_cast<int>(ecmp_hash(seed, a, bb, i, 0) % 32), 0}]);
        l_max = std::max(l_max, ++load[{i, static_cast<int>(ecmp_hash(seed, a, bb, i, 1) % 32), 1}]);
      }
    }
    if (seen.contains(std::min(l_max, 3))) continue;
    seen.insert(std::min(l_max, 3));
    SharedFabric net(*b.fabric, PhaseOverlap::DUTY_CYCLE, 1, SharedRouting{true, 8, seed});
    net.set_job(0, t);
    net.resolve();
    CHECK(net.component_size(0) == 1);
    CHECK(net.factors(0)[0] == Approx(l_max).epsilon(1e-9));
  }
  CHECK(seen.contains(2));
}

TEST_CASE("a checkpoint burst on a converged fabric lengthens the exposed communication of a job on its links",
          "[fabric][sharing][storage]") {
  // Job A as above: ranks 0-11 on rack 0 slots 0-11 (leaf 0), ranks 12-23 on rack 1 slots 12-23 (leaf
  // 1), a ring of 2 members: 12 flows up leaf 0's bundle (3.2e12 B/s) and 12 up leaf 1's. Alone each
  // flow is access-bound, 2e11 B/s (12 x 2e11 = 2.4e12 < 3.2e12). Local 1 s, exposed comm 0.5 s alone.
  // The burst: job B's drain from racks 2 and 3, slots 0-11 (24 GPUs, all on leaf 0), into an object
  // store on the top tier whose sink (1e15 B/s) never binds. Its 24 flows go up leaf 0's bundle with
  // A's 12: 3.2e12 / 36 = 8.89e10 B/s each, for A's flows and the burst's alike. A's ring is as slow as
  // its slowest member (rack 0's, on leaf 0): factor 2e11 / (3.2e12 / 36) = 2.25, so its exposed
  // communication goes from 0.5 s to 0.5 x 2.25 = 1.125 s per step (+0.625 s: step 1.5 s -> 2.125 s).
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  const ClosPlan& plan = b.graph.plan();
  REQUIRE(b.fabric->leaf_bundle_in_routes(0));
  std::vector<int> burst;
  for (int rack : {2, 3})
    for (int s = 0; s < 12; ++s) {
      burst.push_back(rack * 72 + s);
      REQUIRE(plan.leaf_of(rack * 72 + s) == 0);
    }
  const double bundle = 8 * 16 * 25e9, access = GPU_BYTES_PER_S;
  REQUIRE(bundle == 3.2e12);
  for (PhaseOverlap overlap : {PhaseOverlap::ALIGNED, PhaseOverlap::DUTY_CYCLE}) {
    SharedFabric net(*b.fabric, overlap, 1);
    const int store = net.add_sink(1e15, 1e15);
    net.set_job(0, two_rack_job(0, 12, 12, FlowPattern::RING));
    net.set_storage(0, burst, store, true, 1); // owner: job 1 (not on the fabric here)
    net.resolve();
    INFO("overlap " << phase_overlap_name(overlap));
    CHECK(net.component_size(0) == 2);
    const double factor = access / (bundle / 36);
    CHECK(factor == Approx(2.25).epsilon(1e-12));
    CHECK(net.factors(0)[0] == Approx(factor).epsilon(1e-9));
    const double comm_s = 0.5 * net.factors(0)[0];
    CHECK(comm_s - 0.5 == Approx(0.625).epsilon(1e-9));
    // The burst's rate per GPU. Alone: 24 flows on the bundle, 3.2e12/24 = 1.33e11 (below access).
    // Aligned play: always in flight, slowed 1.5x while A's phase runs (a third of A's 1.5 s cycle), so
    // its mean factor lies in (1, 1.5). Duty cycle: F = 1 + (0.5/1.5)(1.5 - 1) = 7/6, r = 1.33e11 / (7/6).
    const double alone = bundle / 24;
    if (overlap == PhaseOverlap::DUTY_CYCLE) {
      CHECK(net.background_rate(0) == Approx(alone * 6.0 / 7.0).epsilon(1e-9));
    } else {
      CHECK(net.background_rate(0) < alone * (1 - 1e-6));
      CHECK(net.background_rate(0) > alone / 1.5 * (1 + 1e-6));
    }
    // The burst ends: A is alone again, at its isolated figure.
    net.set_storage(0, {}, -1, true, -1);
    net.resolve();
    CHECK(net.component_size(0) == 1);
    CHECK(net.factors(0)[0] == 1.0);
    CHECK(net.background_rate(0) == 0.0);
  }
}

TEST_CASE("converged storage: a drain alone runs at its sink's or its links' share, and an object store out of reach blocks it",
          "[fabric][sharing][storage]") {
  // 24 GPUs of leaf 0 write to a sink of 1.2e12 B/s: 24 flows share it, 5e10 each (the bundle would
  // give 1.33e11, access 2e11): a hop of S bytes takes S / (24 x 5e10) = S / 1.2e12, the sink's closed
  // form. Its owner's access links join the owner's component. Sink at 0 (store out of reach): rate 0.
  Bench b(make_spec(8, 200, 2, 64, 3.0));
  std::vector<int> gpus;
  for (int s = 0; s < 12; ++s) {
    gpus.push_back(s);
    gpus.push_back(72 + s);
  }
  SharedFabric net(*b.fabric, PhaseOverlap::DUTY_CYCLE, 1);
  const int store = net.add_sink(1.2e12, 2.4e12);
  net.set_storage(3, gpus, store, true, -1);
  net.resolve();
  CHECK(net.background_rate(3) == Approx(1.2e12 / 24).epsilon(1e-9));
  net.set_storage(3, gpus, store, false, -1); // a read: the sink's read capacity, 1e11 each
  net.resolve();
  CHECK(net.background_rate(3) == Approx(2.4e12 / 24).epsilon(1e-9));
  net.set_sink_capacity(store, 0, 0);
  net.resolve();
  CHECK(net.background_rate(3) == 0.0);
}
