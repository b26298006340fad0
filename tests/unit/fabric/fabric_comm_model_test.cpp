// FabricCommModel: collectives played on the SimGrid fabric against max-min fair shares worked by hand.
// One engine per process: every TEST_CASE here runs in its own process (catch_discover_tests).
//
// The bench is 4 NVL72 racks on an 8-plane fabric of 200 Gb/s ports, radix 64: leaf l holds slots
// 8l..8l+7 of every rack (rail-optimised), so a GPU's scale-out bandwidth is 8 x 25 GB/s = 2e11 B/s. The
// job holds slots 0-63 of each rack; rank d*64 + i is rack d's slot i unless a test permutes it. Its DP
// groups are 4 ranks 64 apart, one per rack (k = 1 per domain).
#include "models/fabric/fabric_comm_model.hpp"
#include "sim/process_pool.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {

constexpr double GPU_BYTES_PER_S = 8 * 25e9;
constexpr double NIC_EFFICIENCY = 0.8;
constexpr int RANKS_PER_RACK = 64;

AlphaBetaCommModel::Params params() {
  return {.nvlink_bytes_per_s = 1e12, .nvlink_latency_s = 1e-6, .scale_out_bytes_per_s = 1.0,
          .scale_out_latency_s = 5e-6};
}

/// Rank d*64 + i on rack d, slot (i + shift*d) mod 64.
FabricCommModel::Placement placement(int racks, int shift = 0) {
  return [racks, shift] {
    std::vector<int> gpus;
    for (int d = 0; d < racks; ++d)
      for (int i = 0; i < RANKS_PER_RACK; ++i)
        gpus.push_back(d * 72 + (i + shift * d) % RANKS_PER_RACK);
    return gpus;
  };
}

CommGroup dp_group() { return {GroupAxis::DP, 4, RANKS_PER_RACK, 1, RANKS_PER_RACK}; }

/// The alpha-beta formulas with the scale-out bandwidth the fabric should give.
double expected_s(Collective kind, const CommGroup& g, double bytes, double b_net) {
  AlphaBetaCommModel::Params p = params();
  p.scale_out_bytes_per_s = b_net * NIC_EFFICIENCY;
  return AlphaBetaCommModel(p).time_s(kind, g, bytes);
}

} // namespace

TEST_CASE("a DP ring on a healthy non-blocking fabric runs at each GPU's full scale-out bandwidth",
          "[fabric][comm]") {
  Bench b(make_spec(8, 200, 2, 64));
  FabricCommModel comm(*b.fabric, params(), NIC_EFFICIENCY, placement(4));
  const CommGroup g = dp_group();
  CHECK(comm.measured_bytes_per_s(Collective::REDUCE_SCATTER, g) == Approx(GPU_BYTES_PER_S).epsilon(1e-6));
  for (Collective kind : {Collective::REDUCE_SCATTER, Collective::ALL_GATHER, Collective::ALL_REDUCE})
    CHECK(comm.time_s(kind, g, 4e9) == Approx(expected_s(kind, g, 4e9, GPU_BYTES_PER_S)).epsilon(1e-6));
  // Groups share no link (no bundle is on a route): one group stands for all 64; one probe served all.
  CHECK(comm.probes() == 1);
  CHECK(comm.flows_played() == 4);
  // The probe ran in a child: this process's clock has not moved and a transfer still starts at 0.
  CHECK(sim::Platform::clock_ticks() == 0);
  const std::vector<double> done = b.transfer({0}, {72}, 25e9);
  CHECK(done[0] == Approx(25e9 / GPU_BYTES_PER_S + 2 * 0.5e-6 + 600e-9).epsilon(1e-9));
}

TEST_CASE("a failed plane of eight costs a DP ring 1/8 of its bandwidth, once the caller names the new state",
          "[fabric][comm]") {
  Bench b(make_spec(8, 200, 2, 64));
  FabricCommModel comm(*b.fabric, params(), NIC_EFFICIENCY, placement(4));
  const CommGroup g = dp_group();
  const double healthy_s = comm.time_s(Collective::REDUCE_SCATTER, g, 4e9);
  // Plane 0's NIC port of rack 1 slot 5: only DP group 5 (not the first) has a slower member.
  REQUIRE(b.fabric->fail(Element{ElementKind::NIC_PORT, 0, 72 + 5}));
  CHECK(comm.time_s(Collective::REDUCE_SCATTER, g, 4e9) == healthy_s); // same state class: the cache answers
  comm.set_scale_out_bw_frac(b.fabric->bw_frac(72 + 5));
  REQUIRE(b.fabric->bw_frac(72 + 5) == Approx(7.0 / 8));
  CHECK(comm.measured_bytes_per_s(Collective::REDUCE_SCATTER, g) == Approx(GPU_BYTES_PER_S * 7 / 8).epsilon(1e-6));
  CHECK(comm.flows_played() == 4 + 8); // the first group and the degraded one
  // With no latency, the bandwidth term alone: 8/7 of the healthy time.
  AlphaBetaCommModel::Params p = params();
  p.scale_out_latency_s = 0;
  FabricCommModel no_latency(*b.fabric, p, NIC_EFFICIENCY, placement(4));
  no_latency.set_scale_out_bw_frac(7.0 / 8);
  const double degraded_s = no_latency.time_s(Collective::REDUCE_SCATTER, g, 4e9);
  CHECK(degraded_s == Approx(3.0 / 4 * 4e9 / (GPU_BYTES_PER_S * NIC_EFFICIENCY) * 8 / 7).epsilon(1e-6));
}

TEST_CASE("on an oversubscribed fabric a ring crossing leaves gets its fair share of the leaf uplinks",
          "[fabric][comm]") {
  Bench b(make_spec(8, 200, 2, 64, 2.0));
  const FabricState& state = b.fabric->state();
  // Same slots in every rack: each ring stays under one leaf and never touches an uplink.
  FabricCommModel aligned(*b.fabric, params(), NIC_EFFICIENCY, placement(4));
  CHECK(aligned.measured_bytes_per_s(Collective::REDUCE_SCATTER, dp_group()) ==
        Approx(GPU_BYTES_PER_S).epsilon(1e-6));
  // Shifted by 8 slots per rack: members send to and receive from GPUs of other rails. A flow between
  // leaves crosses the source leaf's uplink bundle and the destination leaf's; max-min gives the flows
  // of the most loaded bundle min(access, bundle / flows on it), the least rate of all, and they end
  // together: B_net = min over bundles (uplinks x 25 GB/s / flows), counted here from the plan.
  FabricCommModel shifted(*b.fabric, params(), NIC_EFFICIENCY, placement(4, 8));
  const ClosPlan& plan = b.graph.plan();
  const std::vector<int> gpus = placement(4, 8)();
  std::vector<int> up(static_cast<std::size_t>(plan.leaves()), 0), down(up.size(), 0);
  for (int i = 0; i < RANKS_PER_RACK; ++i)
    for (int d = 0; d < 4; ++d) {
      const int src = gpus[static_cast<std::size_t>(d * RANKS_PER_RACK + i)];
      const int dst = gpus[static_cast<std::size_t>((d + 1) % 4 * RANKS_PER_RACK + i)];
      if (plan.leaf_of(src) == plan.leaf_of(dst)) continue;
      ++up[static_cast<std::size_t>(plan.leaf_of(src))];
      ++down[static_cast<std::size_t>(plan.leaf_of(dst))];
    }
  double share = GPU_BYTES_PER_S;
  for (int leaf = 0; leaf < plan.leaves(); ++leaf)
    for (int flows : {up[static_cast<std::size_t>(leaf)], down[static_cast<std::size_t>(leaf)]})
      if (flows > 0) share = std::min(share, state.leaf_up(leaf) * 25e9 / flows);
  REQUIRE(share < GPU_BYTES_PER_S);
  CHECK(shifted.measured_bytes_per_s(Collective::REDUCE_SCATTER, dp_group()) == Approx(share).epsilon(1e-6));
  CHECK(shifted.flows_played() == 256); // bundles on routes: every group is played
}

TEST_CASE("expert all-to-all across two racks and pipeline sends are played as their fabric flows",
          "[fabric][comm]") {
  Bench b(make_spec(8, 200, 2, 64));
  FabricCommModel comm(*b.fabric, params(), NIC_EFFICIENCY, placement(4));
  // EP of 4 ranks 32 apart: 2 in rack 0 (ranks 0, 32), 2 in rack 1 (64, 96). As PXN: each member sends
  // the 2 remote members' data to its same-index peer, 2Q, at its full bandwidth.
  const CommGroup ep{GroupAxis::EP, 4, 32, 2, RANKS_PER_RACK};
  const CommGroup pp{GroupAxis::PP, 2, RANKS_PER_RACK, 1, 128};
  comm.expect({ep, pp, dp_group()});
  CHECK(comm.time_s(Collective::ALL_TO_ALL, ep, 1e9) ==
        Approx(expected_s(Collective::ALL_TO_ALL, ep, 1e9, GPU_BYTES_PER_S)).epsilon(1e-6));
  CHECK(comm.time_s(Collective::SEND_RECV, pp, 1e9) ==
        Approx(expected_s(Collective::SEND_RECV, pp, 1e9, GPU_BYTES_PER_S)).epsilon(1e-6));
  CHECK(comm.time_s(Collective::ALL_REDUCE, dp_group(), 1e9) ==
        Approx(expected_s(Collective::ALL_REDUCE, dp_group(), 1e9, GPU_BYTES_PER_S)).epsilon(1e-6));
  CHECK(comm.probes() == 1); // the three shapes expected were probed together
  // Within one domain: NVLink, no probe.
  const CommGroup tp{GroupAxis::TP, 8, 1, 8, 32};
  CHECK(comm.time_s(Collective::ALL_REDUCE, tp, 1e9) ==
        Approx(AlphaBetaCommModel(params()).time_s(Collective::ALL_REDUCE, tp, 1e9)));
  CHECK(comm.probes() == 1);
}

TEST_CASE("run_in_child returns the child's answer and its exception, and the parent's memory is untouched",
          "[sim][process]") {
  int touched = 0;
  CHECK(sim::run_in_child([&] {
          touched = 1;
          return std::string("answer");
        }) == "answer");
  CHECK(touched == 0);
  CHECK_THROWS_WITH(sim::run_in_child([]() -> std::string { throw std::runtime_error("probe failed"); }),
                    "probe failed");
}

TEST_CASE("halving the fabric's port speed doubles a DP reduce-scatter's bandwidth term, as alpha-beta says",
          "[fabric][comm]") {
  Bench b(make_spec(8, 100, 2, 64)); // 8 x 100G: 1e11 B/s per GPU, half the other tests' fabric
  AlphaBetaCommModel::Params p = params();
  p.scale_out_latency_s = 0; // the bandwidth term alone
  FabricCommModel comm(*b.fabric, p, NIC_EFFICIENCY, placement(4));
  CHECK(comm.measured_bytes_per_s(Collective::REDUCE_SCATTER, dp_group()) == Approx(GPU_BYTES_PER_S / 2).epsilon(1e-6));
  // (D − 1)/D · S / (B · η) with D = 4 racks: twice the time at 2e11 B/s.
  const double full_speed_s = 3.0 / 4 * 4e9 / (GPU_BYTES_PER_S * NIC_EFFICIENCY);
  CHECK(comm.time_s(Collective::REDUCE_SCATTER, dp_group(), 4e9) == Approx(2 * full_speed_s).epsilon(1e-6));
}

TEST_CASE("groups split unevenly over domains are each played, with their incast", "[fabric][comm]") {
  // All 72 GPUs of each rack are ranks (288); DP groups of 6 ranks 48 apart. Groups q < 24 have members
  // in racks (0, 0, 1, 2, 2, 3): 2, 1, 2, 1 per domain; groups q >= 24 have 1, 2, 1, 2. In a ring with
  // D = 4 domains, the two members of a 2-member domain send to the single member of the next: they
  // share its access link (B/2 each) and each carries S/2; the single member sends alone at B and
  // carries S. Both take (D − 1)/D · S/B = 3/4 · S/B: β = 3/(4B), played once per split (6 + 6 flows).
  Bench b(make_spec(8, 200, 2, 64));
  FabricCommModel comm(*b.fabric, params(), NIC_EFFICIENCY, [] {
    std::vector<int> gpus(288);
    for (int g = 0; g < 288; ++g)
      gpus[static_cast<std::size_t>(g)] = g;
    return gpus;
  });
  const CommGroup dp{GroupAxis::DP, 6, 48, 1, 48};
  CHECK(comm.measured_s_per_byte(Collective::REDUCE_SCATTER, dp) == Approx(3.0 / (4 * GPU_BYTES_PER_S)).epsilon(1e-6));
  CHECK(comm.flows_played() == 12);
}

TEST_CASE("a port at half and a leaf's uplinks at half are different state classes", "[fabric][comm]") {
  Bench b(make_spec(8, 200, 2, 64));
  FabricCommModel comm(*b.fabric, params(), NIC_EFFICIENCY, placement(4));
  comm.set_scale_out_bw_frac(0.5); // a GPU lost half its ports; its leaves are whole
  const std::uint64_t port = comm.state_signature();
  comm.set_leaf_bw_frac(0.5); // its leaf's uplinks are at half
  CHECK(comm.state_signature() != port);
  comm.set_leaf_bw_frac(1.0);
  CHECK(comm.state_signature() == port);
  comm.set_placement_key(7);
  CHECK(comm.state_signature() != port);
}
