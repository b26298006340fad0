#include "tools/dcsim/topology.hpp"

#include "sim/temp_dir.hpp"

#include "tools/dcsim/cost.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

#include <sstream>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

namespace dcsim::tools {

std::string sizing_json(const std::string& scenario, const fabric::FabricSpec& spec, const fabric::FabricSizing& z) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario;
  j["kind"] = std::string(fabric::fabric_kind_name(spec.kind));
  j["gpus"] = z.gpus;
  j["planes"] = z.planes;
  j["tiers"] = z.tiers;
  j["switch_radix"] = z.radix;
  j["port_gbps"] = z.port_gbps;
  j["nic_ports_per_gpu"] = z.nic_ports_per_gpu;
  j["gpu_bw_gbps"] = spec.gpu_bw_gbps();
  j["oversubscription"] = spec.oversubscription;
  j["leaf_down_ports"] = z.leaf_down_ports;
  j["leaf_up_ports"] = z.leaf_up_ports;
  j["rail_groups"] = z.rail_groups;
  j["switches"] = z.switches;
  j["switches_per_plane"] = {{"leaf", z.leaves_per_plane}, {"spine", z.spines_per_plane}, {"core", z.cores_per_plane}};
  j["pods_per_plane"] = z.pods_per_plane;
  j["links"] = z.links;
  j["gpu_links"] = z.gpu_links;
  j["switch_links"] = z.switch_links;
  j["cables"] = z.cables;
  j["optical_links"] = z.optical_links;
  j["optics"] = z.optics;
  j["gpu_link_media"] = std::string(fabric::media_name(spec.gpu_link_media));
  j["switch_link_media"] = std::string(fabric::media_name(spec.switch_link_media));
  j["ports_per_transceiver"] = spec.ports_per_transceiver;
  j["max_gpus"] = z.max_gpus;
  j["bisection_gbps"] = z.bisection_gbps;
  j["full_bisection_gbps"] = z.full_bisection_gbps;
  j["full_bisection"] = z.full_bisection;
  j["diameter_hops"] = z.diameter_hops;
  j["switch_power_w"] = z.switch_power_w;
  j["optics_power_w"] = z.optics_power_w;
  j["fabric_power_w"] = z.fabric_power_w;
  j["routing_efficiency_frac"] = spec.routing_efficiency_frac;
  j["reroute_s"] = spec.reroute_s;
  return j.dump() + "\n";
}

std::string sizing_text(const std::string& scenario, const fabric::FabricSpec& spec, const fabric::ClosPlan& plan,
                        const fabric::FabricSizing& z) {
  const auto& layout = plan.layout();
  const bool nvl72 = layout.kind() == hardware::RackKind::NVL72;
  std::string out;
  const auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("  {:<20} {}\n", key, value);
  };
  out += fmt::format("scenario {}: {} GPUs ({} {} of {}), {} fabric\n", scenario, z.gpus, layout.domains(),
                     nvl72 ? "NVL72 racks" : "servers", layout.domain_gpus(),
                     spec.kind == fabric::FabricKind::IB ? "InfiniBand" : "RoCE");
  line("planes", fmt::format("{} ({} port{} of {} Gb/s per GPU and plane; {} Gb/s per GPU)", z.planes,
                             plan.ports_per_plane(), plan.ports_per_plane() > 1 ? "s" : "", z.port_gbps,
                             spec.gpu_bw_gbps()));
  line("tiers", fmt::format("{} of radix-{} switches; leaf {} down / {} up ports (oversubscription {})", z.tiers,
                            z.radix, z.leaf_down_ports, z.leaf_up_ports, spec.oversubscription));
  const auto& g0 = plan.groups().front();
  line("rails", fmt::format("{} group{} of up to {} {}; a full group has one leaf per rail{}", z.rail_groups,
                            z.rail_groups > 1 ? "s" : "", g0.domains, nvl72 ? "racks" : "servers",
                            plan.groups().back().rails_per_leaf > 1
                                ? fmt::format(", the last packs {} rails per leaf", plan.groups().back().rails_per_leaf)
                                : std::string{}));
  std::string per_plane = fmt::format("{} leaves", z.leaves_per_plane);
  if (z.tiers >= 2) per_plane += fmt::format(", {} spines", z.spines_per_plane);
  if (z.tiers == 3) per_plane += fmt::format(", {} cores ({} pods)", z.cores_per_plane, z.pods_per_plane);
  line("switches per plane", per_plane);
  line("switches", fmt::format("{}", z.switches));
  line("links", fmt::format("{} ({} GPU-leaf, {} switch-switch); one cable each", z.links, z.gpu_links, z.switch_links));
  line("optics", fmt::format("{} transceivers for {} optical links (GPU links {}, switch links {}, {} port{} per "
                             "transceiver)",
                             z.optics, z.optical_links, fabric::media_name(spec.gpu_link_media),
                             fabric::media_name(spec.switch_link_media), spec.ports_per_transceiver,
                             spec.ports_per_transceiver > 1 ? "s" : ""));
  line("max GPUs", fmt::format("{} at {} tier{} of radix {}", z.max_gpus, z.tiers, z.tiers > 1 ? "s" : "", z.radix));
  line("bisection", fmt::format("{} Gb/s by max-flow; full bisection {} Gb/s: {}", z.bisection_gbps,
                                z.full_bisection_gbps, z.full_bisection ? "yes" : "no"));
  line("diameter", fmt::format("{} switch hop{}", z.diameter_hops, z.diameter_hops > 1 ? "s" : ""));
  line("power", fmt::format("{:.1f} kW switches + {:.1f} kW optics = {:.1f} kW (estimates)", z.switch_power_w / 1e3,
                            z.optics_power_w / 1e3, z.fabric_power_w / 1e3));
  line("routing", fmt::format("efficiency {}, reroute {} s", spec.routing_efficiency_frac, spec.reroute_s));
  return out;
}

namespace {

/// Writes the view through sim::write_file_atomically (no link followed, no partial file).
bool write_dot(const fabric::ClosGraph::DotView& view, const std::string& path) {
  std::ostringstream out;
  const auto& g = view.graph;
  boost::write_graphviz(
      out, g,
      [&g](std::ostream& os, std::size_t v) {
        os << "[label=" << boost::escape_dot_string(g[v].label) << ", shape=" << g[v].shape << "]";
      },
      [&g](std::ostream& os, const fabric::ClosGraph::DotGraph::edge_descriptor& e) {
        if (!g[e].label.empty()) os << "[label=" << boost::escape_dot_string(g[e].label) << "]";
      },
      [&view](std::ostream& os) {
        os << "label=" << boost::escape_dot_string(view.title) << ";\nlabelloc=t;\n";
      });
  try {
    sim::write_file_atomically(path, out.str());
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

} // namespace

int topology_command(const TopologyOptions& options) {
  const auto loaded = load_scenario(options.scenario_path, options.overrides, {options.allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  const Scenario& s = *loaded.scenario;
  if (!s.fabric) {
    std::cerr << fmt::format("{}: /: the scenario has no \"fabric\" block: nothing to size (dcsim describe fabric)\n",
                             options.scenario_path);
    return 2;
  }
  const hardware::Layout layout(s.hardware, s.cluster);
  const fabric::ClosGraph graph(fabric::ClosPlan(*s.fabric, layout));
  const fabric::FabricSizing z = graph.sizing();
  // The fabric's lines of the priced bill (dcsim cost has the whole bill), from these same counts.
  bool gpu_priced = true;
  const cost::CostSpec prices = scenario_prices(s, gpu_priced);
  const cost::Bill bill(prices, cost::BillCounts{.fabric = cost::fabric_counts(z)});
  if (options.json) {
    auto j = nlohmann::ordered_json::parse(sizing_json(s.name, *s.fabric, z));
    j["fabric_capex_usd"] = bill.area_usd("fabric");
    j["fabric_bill"] = nlohmann::ordered_json::array();
    for (const auto& l : bill.lines())
      if (l.area == "fabric")
        j["fabric_bill"].push_back({{"item", l.item}, {"count", l.count}, {"unit_usd", l.unit_usd}, {"total_usd", l.total_usd}});
    std::cout << j.dump() << "\n";
  } else {
    std::cout << sizing_text(s.name, *s.fabric, graph.plan(), z);
    std::cout << fmt::format("  {:<20} {}\n", "priced bill",
                             s.cost ? "at the /cost prices (dcsim cost: the whole bill)"
                                    : "at the default prices (dcsim describe cost; dcsim cost: the whole bill)");
    std::cout << bill_text(bill, "fabric");
  }
  if (!options.dot_path.empty()) {
    const auto view = graph.dot_view();
    if (!write_dot(view, options.dot_path)) {
      std::cerr << fmt::format("dcsim topology: cannot write {}\n", options.dot_path);
      return 1;
    }
    if (!options.json) std::cout << fmt::format("  {:<20} {} ({})\n", "graphviz", options.dot_path, view.title);
  }
  return 0;
}

} // namespace dcsim::tools
