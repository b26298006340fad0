// dcsim-fabric-bench [SCENARIO]: wall time and peak RSS of building the fabric graph and the SimGrid
// platform at scale (issue 3 target: <= 10 s and <= 4 GiB for 131,072-class GPUs).
//
// Without an argument it builds the reference design of scenarios/vr-nvl72-131k-8x200g.json in code:
// 1,820 Vera Rubin NVL72 racks (131,040 GPUs), 8 planes of 200 Gb/s, radix 512, two tiers. With a
// scenario file it builds that scenario's hardware and fabric instead. Phases, each timed:
//   graph     ClosPlan + ClosGraph (every GPU and switch of every plane, ~2.1 M edges)
//   sizing    counts, bisection (push-relabel max-flow), diameter (BFS)
//   hosts     sim::Platform + RackPlatform (one SimGrid host and NVLink port per GPU)
//   fabric    FabricPlatform (one access link per GPU, one bundle per leaf/pod)
//   seal      zone seal
//   routes    route() between random GPU pairs in different racks, then SimGrid's Host::route_to
//   failures  fail and restore one leaf and one spine (FabricState + SimGrid link updates)
// Peak RSS is the process's maximum resident set (getrusage) after each phase.
#include "models/fabric/fabric_platform.hpp"
#include "models/hardware/rack_platform.hpp"
#include "tools/dcsim/huge_pages.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
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

} // namespace

int main(int argc, char** argv) {
  dcsim::tools::use_transparent_huge_pages(argv);
  hardware::HardwareSpec hw;
  hardware::ClusterSpec cluster;
  fabric::FabricSpec spec;
  std::string label;
  if (argc > 1) {
    const auto loaded = tools::load_scenario(argv[1]);
    if (!loaded.scenario || !loaded.scenario->fabric) {
      std::cerr << (loaded.scenario ? std::string(argv[1]) + ": the scenario has no fabric\n" : loaded.errors);
      return 2;
    }
    hw = loaded.scenario->hardware;
    cluster = loaded.scenario->cluster;
    spec = *loaded.scenario->fabric;
    label = loaded.scenario->name;
  } else {
    hw.gpu.peak_tflops = 4000;
    hw.rack.kind = hardware::RackKind::NVL72;
    hw.rack.gpus = 72;
    hw.rack.gpus_per_tray = 4;
    hw.rack.nvlink_gbps = 28800;
    cluster.racks = 1820;
    spec.kind = fabric::FabricKind::ROCE;
    spec.planes = 8;
    spec.nic_ports_per_gpu = 8;
    spec.port_gbps = 200;
    spec.tiers = 2;
    spec.switch_radix = 512;
    spec.switch_latency_ns = 600;
    spec.ports_per_transceiver = 4;
    spec.switch_power_w = 3000;
    spec.reroute_s = 1;
    spec.routing_efficiency_frac = 0.95;
    label = "built-in reference (vr-nvl72-131k-8x200g)";
  }
  const hardware::Layout layout(hw, cluster);
  std::cout << fmt::format("dcsim-fabric-bench: {}: {} GPUs, {} planes x {} Gb/s, {} tiers of radix {}\n", label,
                           layout.gpus(), spec.planes, spec.port_gbps, spec.tiers, spec.switch_radix);

  Phases phases;
  std::unique_ptr<fabric::ClosGraph> graph;
  phases.run("graph", [&] {
    fabric::ClosPlan plan(spec, layout);
    if (!plan.ok()) {
      std::cerr << "impossible design: " << plan.problems().front().message << "\n";
      std::exit(2);
    }
    graph = std::make_unique<fabric::ClosGraph>(plan);
  });
  const double graph_s = phases.total_s();
  fabric::FabricSizing z;
  phases.run("sizing", [&] { z = graph->sizing(); });
  std::unique_ptr<sim::Platform> platform;
  std::unique_ptr<hardware::RackPlatform> racks;
  std::unique_ptr<fabric::FabricPlatform> fab;
  double platform_s = phases.total_s();
  phases.run("hosts", [&] {
    platform = std::make_unique<sim::Platform>("bench");
    racks = std::make_unique<hardware::RackPlatform>(layout, hw, *platform);
  });
  phases.run("fabric", [&] { fab = std::make_unique<fabric::FabricPlatform>(*graph, *platform); });
  phases.run("seal", [&] {
    platform->set_router([&](int a, int b, std::vector<int>& links, double& latency_s) {
      const int ga = racks->gpu_of_host(a), gb = racks->gpu_of_host(b);
      if (racks->route(ga, gb, links, latency_s) || fab->route(ga, gb, links, latency_s)) return;
      throw std::logic_error("no route");
    });
    platform->seal();
  });
  platform_s = phases.total_s() - platform_s;

  const int n = layout.gpus();
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> pick(0, n - 1);
  constexpr int ROUTES = 1'000'000, SG_ROUTES = 100'000;
  std::size_t sink = 0;
  phases.run("routes", [&] {
    std::vector<int> links;
    double lat = 0;
    for (int i = 0; i < ROUTES; ++i) {
      links.clear();
      if (fab->route(pick(rng), pick(rng), links, lat)) sink += links.size();
    }
    std::vector<simgrid::s4u::Link*> sg_links;
    for (int i = 0; i < SG_ROUTES; ++i) {
      const int a = pick(rng), b = pick(rng);
      if (layout.domain_of(a) == layout.domain_of(b)) continue;
      sg_links.clear();
      double sg_lat = 0;
      platform->host(racks->gpu_host(a))->route_to(platform->host(racks->gpu_host(b)), sg_links, &sg_lat);
      sink += sg_links.size();
    }
  });
  phases.run("failures", [&] {
    if (graph->plan().tiers() == 1) return;
    const fabric::Element leaf{fabric::ElementKind::LEAF, spec.planes - 1, graph->plan().leaves() / 2};
    const fabric::Element spine{fabric::ElementKind::SPINE, 0, 0};
    fab->fail(leaf);
    fab->fail(spine);
    sink += fab->cut_off(0) ? 1 : 0;
    fab->restore(spine);
    fab->restore(leaf);
  });

  std::cout << fmt::format("  switches {}, links {}, SimGrid links added {}, bisection {} Gb/s (full: {}), "
                           "diameter {} (checksum {})\n",
                           z.switches, z.links, fab->links_created(), z.bisection_gbps, z.full_bisection ? "yes" : "no",
                           z.diameter_hops, sink);
  std::cout << fmt::format("  graph + platform: {:.3f} s (graph {:.3f} s, hosts+fabric+seal {:.3f} s); sizing and "
                           "checks {:.3f} s; peak RSS {:.1f} MiB\n",
                           graph_s + platform_s, graph_s, platform_s, phases.total_s() - graph_s - platform_s,
                           peak_rss_mib());
  std::cout.flush();
  std::_Exit(0); // SimGrid's teardown of 10^5 hosts costs seconds and measures nothing
}
