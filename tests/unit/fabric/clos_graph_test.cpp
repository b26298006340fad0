// ClosGraph: counts, bisection by max-flow against the analytic value, diameter, connectivity after
// failures (Boost connected_components) and the per-GPU bandwidth that FabricState reports.
#include "models/fabric/clos_graph.hpp"
#include "models/fabric/fabric_state.hpp"
#include "tests/unit/fabric/fabric_test_support.hpp"

#include <boost/graph/graph_utility.hpp>
#include <catch2/catch.hpp>

#include <map>

using namespace dcsim;
using namespace dcsim::fabric;
using namespace dcsim::fabric::test;

namespace {

/// Ports in use on each switch of the graph (sum of bundled links), by kind.
std::map<NodeKind, std::pair<int, int>> port_range(const ClosGraph& g) {
  std::map<NodeKind, std::pair<int, int>> out;
  const Graph& gr = g.graph();
  for (auto [v, end] = boost::vertices(gr); v != end; ++v) {
    if (gr[*v].kind == NodeKind::GPU) continue;
    int ports = 0;
    for (auto [e, eend] = boost::out_edges(*v, gr); e != eend; ++e)
      ports += gr[*e].links;
    auto [it, fresh] = out.try_emplace(gr[*v].kind, ports, ports);
    it->second.first = std::min(it->second.first, ports);
    it->second.second = std::max(it->second.second, ports);
  }
  return out;
}

} // namespace

TEST_CASE("full two-tier radix-512 plane: counts, ports, bisection and diameter", "[fabric][graph]") {
  const ClosGraph g(ClosPlan(make_spec(1, 200, 2, 512), hgx_layout(16384)));
  const FabricSizing z = g.sizing();
  CHECK(z.gpus == 131072);
  CHECK(z.switches == 512 + 256);
  CHECK(z.gpu_links == 131072);
  CHECK(z.switch_links == 512 * 256);
  CHECK(z.max_gpus == 131072);
  // Every port of every switch is used: leaves 256 down + 256 up, spines one link per leaf.
  const auto ports = port_range(g);
  CHECK(ports.at(NodeKind::LEAF) == std::pair<int, int>{512, 512});
  CHECK(ports.at(NodeKind::SPINE) == std::pair<int, int>{512, 512});
  // Non-blocking: half the GPUs (65,536) at 200 Gb/s each.
  CHECK(z.bisection_gbps == 65536.0 * 200);
  CHECK(z.full_bisection);
  CHECK(z.diameter_hops == 3);
}

TEST_CASE("reference design: 131,040 NVL72 GPUs on 8 planes of 200G, radix 512, two tiers", "[fabric][graph]") {
  const ClosGraph g(ClosPlan(make_spec(8, 200, 2, 512), nvl72_layout(1820)));
  const FabricSizing z = g.sizing();
  CHECK(z.switches == 8 * (512 + 256));
  CHECK(z.gpu_links == 131040LL * 8);
  CHECK(z.switch_links == 8LL * 512 * 256);
  // Analytic full bisection: 65,520 GPUs x 8 planes x 200 Gb/s.
  CHECK(z.bisection_gbps == 65520.0 * 8 * 200);
  CHECK(z.full_bisection);
  CHECK(z.diameter_hops == 3);
  const auto ports = port_range(g);
  CHECK(ports.at(NodeKind::SPINE).second <= 512);
  CHECK(ports.at(NodeKind::LEAF).second <= 512);
}

TEST_CASE("bisection drops by the oversubscription ratio", "[fabric][graph]") {
  // 3,072 HGX servers (24,576 GPUs), radix 512. r = 3: 64 full leaves of 384 GPUs, 128 uplinks each; the
  // leaf-ordered halves are 32 leaves each, so the cut is 32 x 128 uplinks = 12,288 / 3 GPUs' worth.
  const ClosGraph blocking(ClosPlan(make_spec(1, 200, 2, 512, 3.0), hgx_layout(3072)));
  const ClosGraph nonblocking(ClosPlan(make_spec(1, 200, 2, 512, 1.0), hgx_layout(3072)));
  const FabricSizing zb = blocking.sizing(), zn = nonblocking.sizing();
  CHECK(zn.bisection_gbps == 12288.0 * 200);
  CHECK(zn.full_bisection);
  CHECK(zb.bisection_gbps == 12288.0 * 200 / 3);
  CHECK_FALSE(zb.full_bisection);
  CHECK(zn.bisection_gbps / zb.bisection_gbps == 3.0);
}

TEST_CASE("full three-tier plane: counts, bisection and diameter", "[fabric][graph]") {
  // k = 16: 1,024 GPUs; 128 leaves, 128 spines, 64 cores; every switch uses all 16 ports.
  const ClosGraph g(ClosPlan(make_spec(1, 400, 3, 16), hgx_layout(128)));
  const FabricSizing z = g.sizing();
  CHECK(z.switches == 128 + 128 + 64);
  CHECK(z.switch_links == 128 * 8 + 128 * 8);
  const auto ports = port_range(g);
  for (const NodeKind k : {NodeKind::LEAF, NodeKind::SPINE, NodeKind::CORE})
    CHECK(ports.at(k) == std::pair<int, int>{16, 16});
  CHECK(z.bisection_gbps == 512.0 * 400);
  CHECK(z.full_bisection);
  CHECK(z.diameter_hops == 5);

  // r = 3 (d = 12, u = 4): 1,536 GPUs on 128 full leaves; halves of 64 leaves, cut 64 x 4 uplinks.
  const ClosGraph o(ClosPlan(make_spec(1, 400, 3, 16, 3.0), hgx_layout(192)));
  CHECK(o.sizing().bisection_gbps == 768.0 * 400 / 3);
}

TEST_CASE("one tier is one switch per plane", "[fabric][graph]") {
  const ClosGraph g(ClosPlan(make_spec(2, 400, 1, 64), hgx_layout(8)));
  const FabricSizing z = g.sizing();
  CHECK(z.switches == 2);
  CHECK(z.switch_links == 0);
  CHECK(z.diameter_hops == 1);
  CHECK(z.bisection_gbps == 32.0 * 2 * 400);
}

TEST_CASE("optics and cables follow the media assumption", "[fabric][graph]") {
  // 8 HGX servers (64 GPUs), 8 planes of 200G, radix 64 (d = u = 32): one group of 8 servers, 4 rails
  // per leaf -> 2 leaves and 1 spine per plane. Modules carry 4 ports.
  FabricSpec spec = make_spec(8, 200, 2, 64);
  spec.ports_per_transceiver = 4;
  const auto layout = hgx_layout(8);
  const FabricSizing optics = ClosGraph(ClosPlan(spec, layout)).sizing();
  spec.gpu_link_media = Media::COPPER;
  const FabricSizing copper = ClosGraph(ClosPlan(spec, layout)).sizing();
  CHECK(optics.cables == optics.links);
  CHECK(optics.optical_links == optics.links);
  CHECK(copper.cables == copper.links);
  CHECK(copper.optical_links == copper.switch_links);
  // Optical GPU links need per GPU ceil(8 ports / 4) = 2 NIC modules (64 x 2 = 128) and per leaf 32 more
  // optical ports, 8 modules (2 leaves x 8 planes x 8 = 128): copper saves 256 modules.
  CHECK(optics.optics - copper.optics == 256);
  CHECK(optics.optics_power_w - copper.optics_power_w == 256 * spec.transceiver_power_w);
}

TEST_CASE("a failed leaf cuts its GPUs off with one plane, and costs 1/8 with eight", "[fabric][graph][state]") {
  // 16 NVL72 racks, radix 64 (d = 32): one group, 2 rails per leaf -> 36 leaves of 32 GPUs.
  for (const int planes : {1, 8}) {
    const ClosGraph g(ClosPlan(make_spec(planes, 1600.0 / planes, 2, 64), nvl72_layout(16)));
    const ClosPlan& plan = g.plan();
    REQUIRE(plan.leaves() == 36);
    FabricState state(plan);
    std::vector<int> comp;
    CHECK(g.components(state, comp) == 1);

    REQUIRE(state.fail(Element{ElementKind::LEAF, 0, 0}));
    std::vector<int> on_leaf;
    plan.leaf_gpus(0, on_leaf);
    REQUIRE(on_leaf.size() == 32);
    const int n = g.components(state, comp);
    if (planes == 1) {
      // The 32 GPUs of leaf 0 become isolated vertices: 1 main component + 32.
      CHECK(n == 33);
      for (int gpu : on_leaf) {
        CHECK(comp[static_cast<std::size_t>(gpu)] != comp[100]); // GPU 100: rack 1, leaf 14
        CHECK(state.bw_frac(gpu) == 0.0);
        CHECK(state.cut_off(gpu));
      }
    } else {
      CHECK(n == 1);
      for (int gpu : on_leaf) {
        CHECK(state.bw_frac(gpu) == 7.0 / 8.0);
        CHECK_FALSE(state.cut_off(gpu));
      }
    }
    // GPUs on other leaves keep everything.
    CHECK(state.bw_frac(100) == 1.0);
    CHECK(state.cut_off(100) == false);
    REQUIRE(state.restore(Element{ElementKind::LEAF, 0, 0}));
    CHECK(g.components(state, comp) == 1);
    CHECK(state.bw_frac(on_leaf.front()) == 1.0);
  }
}
