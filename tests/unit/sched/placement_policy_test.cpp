// Placement policies (first fit, topology-aware packing, random spread) and a job's span on the fabric.
#include "models/sched/allocator.hpp"
#include "models/sched/job_span.hpp"
#include "models/sched/placement_policy.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace dcsim;
using sched::PlacementPolicy;

namespace {

/// 8 domains in rail groups of 2 ({0,1} {2,3} {4,5} {6,7}), groups 0-1 in pod 0 and 2-3 in pod 1.
sched::PlacementTopology eight_domains() {
  return {{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}};
}

std::vector<int> order(PlacementPolicy policy, int need, sim::Rng* rng = nullptr) {
  // Domains 0 and 6 are taken: free per group g0 {1}, g1 {2,3}, g2 {4,5}, g3 {7}; per pod 3 and 3.
  return sched::placement_order(policy, eight_domains(), {1, 2, 3, 4, 5, 7}, need, 8, rng);
}

} // namespace

TEST_CASE("first fit takes domains in index order", "[unit][placement]") {
  CHECK(order(PlacementPolicy::FIRST_FIT, 3) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("packing takes the tightest group that holds the job, else the tightest pod", "[unit][placement]") {
  // One domain: groups g0 and g3 have one free each (the tightest); g0 has the lower index. The rest follow
  // pods most-free first (a tie: pod 0), each pod's groups most-free first: g1, g0 | g2, g3.
  CHECK(order(PlacementPolicy::PACK, 1) == std::vector<int>{1, 2, 3, 4, 5, 7, 0, 6});
  // Two: g1 and g2 hold it with 2 free each: g1; then g0, g2, g3.
  CHECK(order(PlacementPolicy::PACK, 2) == std::vector<int>{2, 3, 1, 4, 5, 7, 0, 6});
  // Three: no group holds it; pods 0 and 1 both have 3: pod 0, its groups g1 then g0.
  CHECK(order(PlacementPolicy::PACK, 3) == std::vector<int>{2, 3, 1, 4, 5, 7, 0, 6});
  // Four: no pod holds it either: pods and groups most-free first.
  CHECK(order(PlacementPolicy::PACK, 4) == std::vector<int>{2, 3, 1, 4, 5, 7, 0, 6});
  // A pod that fits beats a bigger one: free {0,1,2} in pod 0 and {4,5,6,7} in pod 1, need 3 -> pod 0.
  CHECK(sched::placement_order(PlacementPolicy::PACK, eight_domains(), {0, 1, 2, 4, 5, 6, 7}, 3, 8, nullptr) ==
        std::vector<int>{0, 1, 2, 4, 5, 6, 7, 3});
}

TEST_CASE("spread draws a seeded permutation of the free domains", "[unit][placement]") {
  sim::Rng a(7, 0, "placement/spread"), b(7, 0, "placement/spread"), c(8, 0, "placement/spread");
  const auto x = order(PlacementPolicy::SPREAD, 2, &a);
  CHECK(x == order(PlacementPolicy::SPREAD, 2, &b)); // same seed, same draw
  std::vector<int> head(x.begin(), x.begin() + 6);
  std::sort(head.begin(), head.end());
  CHECK(head == std::vector<int>{1, 2, 3, 4, 5, 7}); // the free domains first, each once
  CHECK(std::vector<int>(x.begin() + 6, x.end()) == std::vector<int>{0, 6});
  // Over 16 draws of another seed, some order differs (a fixed order would be a 1 in 720^15 chance).
  bool differs = false;
  for (int i = 0; i < 16; ++i)
    differs = differs || order(PlacementPolicy::SPREAD, 2, &c) != x;
  CHECK(differs);
}

TEST_CASE("the allocator places by its policy: packing fills a tight group, first fit the lowest index",
          "[unit][placement]") {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.spare_gpus = 8; // 64 usable GPUs per rack
  const hardware::Layout layout(h, hardware::ClusterSpec{8});
  for (const auto policy : {PlacementPolicy::FIRST_FIT, PlacementPolicy::PACK}) {
    failure::GpuHealth health(layout.gpus());
    sched::Allocator alloc(layout, health, 0);
    alloc.set_policy(policy, eight_domains(), 1);
    REQUIRE(alloc.place(0, 64));  // one rack: group 0 (all tie) -> rack 0 either way
    REQUIRE(alloc.place(1, 128)); // two racks
    REQUIRE(alloc.place(2, 64));
    CHECK(alloc.job_domains(0) == std::vector<int>{0});
    if (policy == PlacementPolicy::FIRST_FIT) {
      CHECK(alloc.job_domains(1) == std::vector<int>{1, 2}); // straddles groups 0 and 1
      CHECK(alloc.job_domains(2) == std::vector<int>{3});
    } else {
      CHECK(alloc.job_domains(1) == std::vector<int>{2, 3}); // group 1 whole
      CHECK(alloc.job_domains(2) == std::vector<int>{1});    // the hole left in group 0
    }
  }
}

TEST_CASE("a failed domain is replaced by the spare its policy picks: packing the one in the job's group",
          "[unit][placement]") {
  // 8 racks of 64 usable GPUs; the last two (6, 7) are the spare pool. Rail groups: {0, 1, 7}, {2, 3, 6},
  // {4, 5}. The job takes racks 0 and 1 under either policy (first fit: lowest indices; pack: the three
  // groups tie for two domains, the lowest wins). Three trays of rack 0 fail (12 GPUs, 8 in-rack
  // spares): the share moves to a spare. First fit takes spare 6 (lowest index, another group); pack
  // takes spare 7, in the job's group; spread one of the two.
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.spare_gpus = 8;
  const hardware::Layout layout(h, hardware::ClusterSpec{8});
  const sched::PlacementTopology topology{{0, 0, 1, 1, 2, 2, 1, 0}, {0, 0, 0, 0, 0, 0, 0, 0}};
  for (const auto policy : {PlacementPolicy::FIRST_FIT, PlacementPolicy::PACK, PlacementPolicy::SPREAD}) {
    failure::GpuHealth health(layout.gpus());
    sched::Allocator alloc(layout, health, 2);
    health.set_transition_hook([&alloc](int g, bool up) { alloc.on_health_change(g, up); });
    alloc.set_policy(policy, topology, 1);
    REQUIRE(alloc.place(0, 128));
    const std::vector<int> before = alloc.job_domains(0);
    if (policy != PlacementPolicy::SPREAD) REQUIRE(before == std::vector<int>{0, 1});
    const int trays = layout.gpus_per_rack() / 4;
    for (int t : {0, 1, 2}) // three trays of the job's first rack
      health.fail(layout.unit_range(hardware::Scope::TRAY, before[0] * trays + t));
    REQUIRE(alloc.recover(0));
    const int taken = alloc.job_domains(0)[0];
    CHECK(alloc.job_domains(0)[1] == before[1]);
    if (policy == PlacementPolicy::FIRST_FIT) CHECK(taken == 6);
    if (policy == PlacementPolicy::PACK) CHECK(taken == 7);
    if (policy == PlacementPolicy::SPREAD) CHECK((taken == 6 || taken == 7));
  }
}

TEST_CASE("a job's span counts the leaves, pods and planes its GPUs attach to", "[unit][placement]") {
  // HGX servers of 8 GPUs, radix 16 at 1:1: d = u = 8 ports down, so a rail group is G = 8 servers on 8
  // leaves (one per rail); 16 servers make 2 groups, 16 leaves. Three tiers: pods of k/2 = 8 leaves, so
  // group 0 is pod 0 and group 1 pod 1. Two planes of one port each.
  const hardware::Layout layout = fabric::test::hgx_layout(16);
  const fabric::ClosPlan plan(fabric::test::make_spec(2, 400, 3, 16), layout);
  REQUIRE(plan.ok());
  REQUIRE(plan.groups().size() == 2);
  auto gpus_of = [](std::vector<int> servers) {
    std::vector<int> out;
    for (int s : servers)
      for (int g = 0; g < 8; ++g)
        out.push_back(s * 8 + g);
    return out;
  };
  const sched::JobSpan one_group = sched::job_span(plan, gpus_of({0, 1, 7}));
  CHECK(one_group.leaves == 8); // rails 0..7 of group 0
  CHECK(one_group.pods == 1);
  CHECK(one_group.planes == 2);
  const sched::JobSpan two_groups = sched::job_span(plan, gpus_of({0, 8}));
  CHECK(two_groups.leaves == 16);
  CHECK(two_groups.pods == 2);
  const sched::JobSpan two_gpus = sched::job_span(plan, {0, 9}); // rail 0 of server 0, rail 1 of server 1
  CHECK(two_gpus.leaves == 2);
  CHECK(two_gpus.pods == 1);
  // The topology the policies read: servers 0-7 in group 0 (pod 0), 8-15 in group 1 (pod 1).
  const sched::PlacementTopology t = sched::placement_topology(&plan, layout.domains());
  CHECK(t.group_of_domain == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(t.pod_of_domain == t.group_of_domain);
  // The recorder keeps the largest span.
  sched::SpanRecorder rec(&plan);
  rec.record(3, gpus_of({0, 8}));
  rec.record(3, gpus_of({0}));
  CHECK(rec.largest(3).leaves == 16);
  CHECK(rec.largest(2).leaves == 0);
}
