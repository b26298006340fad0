// dcsim-fabric-bench [SCENARIO]: wall time and peak RSS of building the fabric graph and the SimGrid
// platform at scale (issue 3 target: <= 10 s and <= 4 GiB for 131,072-class GPUs).
//
// Without an argument it builds the reference design of scenarios/vr-nvl72-131k-8x200g.json in code:
// 1,820 Vera Rubin NVL72 racks (131,040 GPUs), 8 planes of 200 Gb/s, radix 512, two tiers. With a
// scenario file it builds that scenario's hardware and fabric instead. Phases, each timed:
//   graph     ClosPlan + ClosGraph (every GPU and switch of every plane, ~2.1 M edges)
//   sizing    counts, bisection (push-relabel max-flow), diameter (BFS)
//   platform  FabricPlatform: the SimGrid platform (one host and one access link per GPU, one bundle
//             per leaf/pod), sealed
//   routes    route() between random GPU pairs in different racks, then the route SimGrid sees
//   failures  fail and restore one leaf and one spine (FabricState + SimGrid link updates)
// Peak RSS is the process's maximum resident set (getrusage) after each phase.
#include "models/fabric/fabric_platform.hpp"
#include "tools/dcsim/huge_pages.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <random>

using namespace dcsim;

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0; // Linux: KiB
}

class Phases {
public:
  template <class F> void run(const char* name, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total_s_ += s;
    std::cout << fmt::format("  {:<10} {:8.3f} s   peak RSS {:8.1f} MiB\n", name, s, peak_rss_mib());
  }
  double total_s() const { return total_s_; }

private:
  double total_s_ = 0;
};

/// The design to build: a scenario's hardware and fabric, or the built-in reference.
struct Design {
  hardware::HardwareSpec hw;
  hardware::ClusterSpec cluster;
  fabric::FabricSpec spec;
  std::string label;
};

/// The reference design of scenarios/vr-nvl72-131k-8x200g.json.
Design reference_design() {
  Design d;
  d.hw.gpu.peak_tflops = 4000;
  d.hw.rack.kind = hardware::RackKind::NVL72;
  d.hw.rack.gpus = 72;
  d.hw.rack.gpus_per_tray = 4;
  d.hw.rack.nvlink_gbps = 28800;
  d.cluster.racks = 1820;
  d.spec.kind = fabric::FabricKind::ROCE;
  d.spec.planes = 8;
  d.spec.nic_ports_per_gpu = 8;
  d.spec.port_gbps = 200;
  d.spec.tiers = 2;
  d.spec.switch_radix = 512;
  d.spec.switch_latency_ns = 600;
  d.spec.ports_per_transceiver = 4;
  d.spec.switch_power_w = 3000;
  d.spec.reroute_s = 1;
  d.spec.routing_efficiency_frac = 0.95;
  d.label = "built-in reference (vr-nvl72-131k-8x200g)";
  return d;
}

/// Random routes: 10^6 from FabricPlatform::route, 10^5 as SimGrid sees them. Returns a checksum.
std::size_t time_routes(const hardware::Layout& layout, const fabric::FabricPlatform& fab) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> pick(0, layout.gpus() - 1);
  constexpr int ROUTES = 1'000'000, SG_ROUTES = 100'000;
  std::size_t sink = 0;
  std::vector<int> links;
  double lat = 0;
  for (int i = 0; i < ROUTES; ++i) {
    links.clear();
    if (fab.route(pick(rng), pick(rng), links, lat)) sink += links.size();
  }
  for (int i = 0; i < SG_ROUTES; ++i) {
    const int a = pick(rng), b = pick(rng);
    if (layout.domain_of(a) == layout.domain_of(b)) continue;
    double sg_lat = 0;
    sink += static_cast<std::size_t>(fab.platform().route_link_count(a, b, sg_lat)); // host index = GPU index
  }
  return sink;
}

/// Fails and restores one leaf and one spine. Returns a checksum.
std::size_t time_failures(const fabric::FabricSpec& spec, const fabric::ClosGraph& graph, fabric::FabricPlatform& fab) {
  if (graph.plan().tiers() == 1) return 0;
  const fabric::Element leaf{fabric::ElementKind::LEAF, spec.planes - 1, graph.plan().leaves() / 2};
  const fabric::Element spine{fabric::ElementKind::SPINE, 0, 0};
  fab.fail(leaf);
  fab.fail(spine);
  const std::size_t sink = fab.cut_off(0) ? 1 : 0;
  fab.restore(spine);
  fab.restore(leaf);
  return sink;
}

} // namespace

int main(int argc, char** argv) {
  dcsim::tools::use_transparent_huge_pages(argv);
  Design d = reference_design();
  if (argc > 1) {
    const auto loaded = tools::load_scenario(argv[1]);
    if (!loaded.scenario || !loaded.scenario->fabric) {
      std::cerr << (loaded.scenario ? std::string(argv[1]) + ": the scenario has no fabric\n" : loaded.errors);
      return 2;
    }
    d = Design{loaded.scenario->hardware, loaded.scenario->cluster, *loaded.scenario->fabric, loaded.scenario->name};
  }
  const hardware::Layout layout(d.hw, d.cluster);
  std::cout << fmt::format("dcsim-fabric-bench: {}: {} GPUs, {} planes x {} Gb/s, {} tiers of radix {}\n", d.label,
                           layout.gpus(), d.spec.planes, d.spec.port_gbps, d.spec.tiers, d.spec.switch_radix);

  Phases phases;
  std::unique_ptr<fabric::ClosGraph> graph;
  phases.run("graph", [&] {
    fabric::ClosPlan plan(d.spec, layout);
    if (!plan.ok()) {
      std::cerr << "impossible design: " << plan.problems().front().message << "\n";
      std::exit(2);
    }
    graph = std::make_unique<fabric::ClosGraph>(plan);
  });
  const double graph_s = phases.total_s();
  fabric::FabricSizing z;
  phases.run("sizing", [&] { z = graph->sizing(); });
  std::unique_ptr<fabric::FabricPlatform> fab;
  double platform_s = phases.total_s();
  phases.run("platform", [&] { fab = std::make_unique<fabric::FabricPlatform>(*graph, "bench"); });
  platform_s = phases.total_s() - platform_s;
  std::size_t sink = 0;
  phases.run("routes", [&] { sink += time_routes(layout, *fab); });
  phases.run("failures", [&] { sink += time_failures(d.spec, *graph, *fab); });

  std::cout << fmt::format("  switches {}, links {}, SimGrid links added {}, bisection {} Gb/s (full: {}), "
                           "diameter {} (checksum {})\n",
                           z.switches, z.links, fab->links_created(), z.bisection_gbps, z.full_bisection ? "yes" : "no",
                           z.diameter_hops, sink);
  std::cout << fmt::format("  graph + platform: {:.3f} s (graph {:.3f} s, platform {:.3f} s); sizing and "
                           "checks {:.3f} s; peak RSS {:.1f} MiB\n",
                           graph_s + platform_s, graph_s, platform_s, phases.total_s() - graph_s - platform_s,
                           peak_rss_mib());
  std::cout.flush();
  std::_Exit(0); // SimGrid's teardown of 10^5 hosts costs seconds and measures nothing
}
