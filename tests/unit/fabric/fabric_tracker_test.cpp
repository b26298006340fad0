// FabricTracker: what fabric faults leave to each job (leaf shares, NIC ports, cut-off GPUs, placement
// class).
#include "models/fabric/fabric_comm_model.hpp"
#include "models/fabric/fabric_state.hpp"
#include "models/fabric/fabric_tracker.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {
// 16 NVL72 racks (1,152 GPUs), radix 64, two tiers: 36 leaves per plane (fabric_state_test's plan).
ClosPlan plan_of(int planes) {
  return ClosPlan(make_spec(planes, 1600.0 / planes, 2, 64), nvl72_layout(16));
}

std::vector<int> leaf_gpus(const ClosPlan& plan, int leaf) {
  std::vector<int> gpus;
  plan.leaf_gpus(leaf, gpus);
  return gpus;
}

struct Fixture {
  ClosPlan plan;
  FabricState state;
  std::map<int, bool> cut; ///< last cut report per GPU
  hardware::PlacementIndex placement;
  FabricTracker tracker;
  explicit Fixture(int planes)
      : plan(plan_of(planes)), state(plan), placement(plan.gpus(), 2),
        tracker(state, placement, [this](int g, bool c) { cut[g] = c; }) {}
  void own(int gpu, int job) { placement.set_owner(gpu, job); }
  void fail(const Element& e) {
    REQUIRE(state.fail(e));
    tracker.element_changed(e);
  }
  void restore(const Element& e) {
    REQUIRE(state.restore(e));
    tracker.element_changed(e);
  }
};
} // namespace

TEST_CASE("a leaf fault in one of 8 planes leaves 7/8 to the jobs on that leaf only", "[fabric][tracker]") {
  Fixture f(8);
  REQUIRE(f.plan.ok());
  const auto on_leaf0 = leaf_gpus(f.plan, 0), on_leaf5 = leaf_gpus(f.plan, 5);
  for (int g : on_leaf0)
    f.own(g, 0);
  for (int g : on_leaf5)
    f.own(g, 1);
  f.fail(Element{ElementKind::LEAF, 0, 0});
  CHECK(f.tracker.job_bw(0) == 7.0 / 8);
  CHECK(f.tracker.job_leaf_bw(0) == 7.0 / 8);
  CHECK(f.tracker.job_bw(1) == 1.0);
  CHECK(f.tracker.degraded_bw_gpus() == f.plan.leaf_gpu_count(0));
  CHECK(f.cut.empty()); // nobody lost every path
  f.restore(Element{ElementKind::LEAF, 0, 0});
  CHECK(f.tracker.job_bw(0) == 1.0);
  CHECK(f.tracker.degraded_bw_gpus() == 0);
}

TEST_CASE("with one plane a leaf fault cuts its GPUs off until it is back", "[fabric][tracker]") {
  Fixture f(1);
  REQUIRE(f.plan.ok());
  const auto on_leaf2 = leaf_gpus(f.plan, 2);
  f.own(on_leaf2.front(), 0);
  f.fail(Element{ElementKind::LEAF, 0, 2});
  REQUIRE(f.cut.size() == on_leaf2.size());
  for (int g : on_leaf2) {
    CHECK(f.cut[g]);
    CHECK(f.tracker.cut_off(g));
  }
  CHECK(f.tracker.job_bw(0) == 0.0); // the job is interrupted, not slowed
  CHECK(f.tracker.degraded_bw_gpus() == 0);      // cut off is not degraded
  f.restore(Element{ElementKind::LEAF, 0, 2});
  for (int g : on_leaf2)
    CHECK_FALSE(f.cut[g]);
  CHECK(f.tracker.job_bw(0) == 1.0);
}

TEST_CASE("a NIC port down degrades its GPU alone, and only the job holding it", "[fabric][tracker]") {
  Fixture f(8);
  f.own(5, 0);
  f.own(6, 1);
  f.fail(Element{ElementKind::NIC_PORT, 3, 5}); // GPU 5's port in plane 3
  CHECK(f.tracker.job_bw(0) == 7.0 / 8);
  CHECK(f.tracker.job_leaf_bw(0) == 1.0); // its leaf is whole
  CHECK(f.tracker.job_bw(1) == 1.0);
  CHECK(f.tracker.degraded_bw_gpus() == 1);
  f.own(5, -1); // the job swapped the GPU out
  CHECK(f.tracker.job_bw(0) == 1.0);
}

TEST_CASE("a job's placement class is the sum of its leaves' count keys, kept current", "[fabric][tracker]") {
  Fixture f(8);
  const auto on_leaf0 = leaf_gpus(f.plan, 0), on_leaf1 = leaf_gpus(f.plan, 1);
  for (int i = 0; i < 3; ++i)
    f.own(on_leaf0[static_cast<std::size_t>(i)], 0);
  f.own(on_leaf1[0], 0);
  const auto key = [&](int on0, int on1) {
    std::uint64_t k = 0;
    for (int l = 0; l < f.plan.leaves(); ++l)
      k += FabricCommModel::leaf_count_key(l == 0 ? on0 : l == 1 ? on1 : 0);
    return k;
  };
  CHECK(f.tracker.placement_key(0) == key(3, 1));
  f.own(on_leaf0[0], -1);
  CHECK(f.tracker.placement_key(0) == key(2, 1));
  f.own(on_leaf0[0], 1); // another job's GPUs do not enter job 0's class
  CHECK(f.tracker.placement_key(0) == key(2, 1));
}
