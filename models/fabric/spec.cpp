#include "models/fabric/spec.hpp"

#include "models/fabric/clos_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dcsim::fabric {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {

/// Per-kind defaults (sources in spec.hpp).
struct KindDefaults {
  double switch_capacity_gbps; ///< roce: radix = capacity / port_gbps
  int radix;                   ///< ib: fixed radix
  double switch_latency_ns;
  double switch_power_w;
  double reroute_s;
  double routing_efficiency_frac;
};
constexpr KindDefaults ROCE_DEFAULTS{102400.0, 0, 600.0, 3000.0, 1.0, 0.95};
constexpr KindDefaults IB_DEFAULTS{0.0, 144, 130.0, 3200.0, 0.004, 0.95};
constexpr double TRANSCEIVER_GBPS = 800.0; ///< an 800G-class module carries 800 / port_gbps ports

sim::Bounds open_fraction() { return sim::Bounds{0.0, 1.0, true, false}; } // in (0, 1]

} // namespace

std::string_view fabric_kind_name(FabricKind kind) { return kind == FabricKind::IB ? "ib" : "roce"; }
std::string_view media_name(Media media) { return media == Media::COPPER ? "copper" : "optics"; }

const KeyTable& fabric_keys() {
  static const KeyTable table{
      "fabric", "/fabric",
      "scale-out fabric: planes of rail-optimised Clos switches (absent: no fabric is modelled)",
      {
          KeyDef{"kind", ValueType::STRING, "", "roce",
                 "roce: Spectrum-X Ethernet; ib: Quantum InfiniBand (sets the per-kind defaults below)",
                 {}, {"roce", "ib"}},
          KeyDef{"planes", ValueType::INTEGER, "", 1, "independent planes, each its own Clos",
                 sim::between(1, 64)},
          KeyDef{"port_gbps", ValueType::NUMBER, "Gb/s", nullptr, "bandwidth of one NIC port and of every switch port",
                 sim::positive(), {}, "/hardware/gpu/nic_gbps / nic_ports_per_gpu"},
          KeyDef{"nic_ports_per_gpu", ValueType::INTEGER, "", nullptr,
                 "NIC ports per GPU, spread evenly over the planes (a multiple of planes)", sim::between(1, 64), {},
                 "planes (one port per plane)"},
          KeyDef{"tiers", ValueType::INTEGER, "", 2, "switch tiers per plane: 1 (one switch), 2 (leaf-spine) or 3",
                 sim::between(1, 3)},
          KeyDef{"switch_radix", ValueType::INTEGER, "", nullptr, "ports per switch at port_gbps",
                 sim::between(2, 65536), {}, "roce: 102400 / port_gbps (Spectrum-6 class); ib: 144 (Quantum-X800)"},
          KeyDef{"oversubscription", ValueType::NUMBER, "", 1.0,
                 "leaf down:up port ratio (1 = non-blocking; 3 = three down ports per uplink)", sim::at_least(1)},
          KeyDef{"link_latency_us", ValueType::NUMBER, "us", 0.5,
                 "latency of one cable (propagation; estimate: ~100 m of fibre)", sim::non_negative()},
          KeyDef{"switch_latency_ns", ValueType::NUMBER, "ns", nullptr, "port-to-port latency of one switch",
                 sim::non_negative(), {}, "roce: 600 (estimate); ib: 130"},
          KeyDef{"gpu_link_media", ValueType::STRING, "", "optics",
                 "GPU-to-leaf cables: copper (leaves within copper reach, no transceivers) or optics",
                 {}, {"copper", "optics"}},
          KeyDef{"switch_link_media", ValueType::STRING, "", "optics", "switch-to-switch cables: copper or optics",
                 {}, {"copper", "optics"}},
          KeyDef{"ports_per_transceiver", ValueType::INTEGER, "", nullptr,
                 "ports one optical transceiver module carries (breakout)", sim::between(1, 64), {},
                 "max(1, floor(800 / port_gbps)) (an 800G-class module)"},
          KeyDef{"transceiver_power_w", ValueType::NUMBER, "W", 18.0,
                 "power of one optical transceiver module (SN5600 per-port optics budget)", sim::non_negative()},
          KeyDef{"switch_power_w", ValueType::NUMBER, "W", nullptr, "power of one switch without pluggable optics",
                 sim::non_negative(), {}, "roce: 3000; ib: 3200 (estimates)"},
          KeyDef{"reroute_s", ValueType::NUMBER, "s", nullptr,
                 "time from a fabric fault until traffic flows on the surviving paths", sim::non_negative(), {},
                 "roce: 1.0 (estimate: BFD + BGP); ib: 0.004 (SHIELD)"},
          KeyDef{"routing_efficiency_frac", ValueType::NUMBER, "", nullptr,
                 "share of switch-to-switch capacity usable under load (adaptive routing vs ECMP collisions)",
                 open_fraction(), {}, "roce: 0.95 (Spectrum-X); ib: 0.95"},
          KeyDef{"phase_overlap", ValueType::STRING, "", "duty_cycle",
                 "how concurrent jobs' communication phases overlap on shared links (docs/architecture.md, "
                 "\"One fabric\"): isolated (each job as if alone), aligned (worst case), interleaved (best "
                 "case), random (phase-level play, seeded offsets), duty_cycle (first-order mean of random)",
                 {}, {"isolated", "aligned", "interleaved", "random", "duty_cycle"}},
          KeyDef{"routing", ValueType::STRING, "", "ideal",
                 "ideal: adaptive routing or packet spraying (bundles shared evenly, scaled by "
                 "routing_efficiency_frac); ecmp_hash: each subflow pinned to one uplink by a seeded hash",
                 {}, {"ideal", "ecmp_hash"}},
          KeyDef{"collective_channels", ValueType::INTEGER, "", nullptr,
                 "ecmp_hash: collective channels per connection between two GPUs (NCCL channels)",
                 sim::between(1, 1024), {}, "planes (one channel per plane)"},
          KeyDef{"qps_per_connection", ValueType::INTEGER, "", 1,
                 "ecmp_hash: queue pairs per channel, each hashed on its own (NCCL_IB_QPS_PER_CONNECTION)",
                 sim::between(1, 1024)},
      }};
  return table;
}

FabricSpec decode_fabric(const sim::Node& fabric, double nic_gbps) {
  FabricSpec s;
  s.kind = fabric.string("kind") == "ib" ? FabricKind::IB : FabricKind::ROCE;
  const KindDefaults& defaults = s.kind == FabricKind::IB ? IB_DEFAULTS : ROCE_DEFAULTS;
  s.planes = fabric.int32("planes");
  s.nic_ports_per_gpu = static_cast<int>(fabric.optional_integer("nic_ports_per_gpu").value_or(s.planes));
  if (s.nic_ports_per_gpu % s.planes != 0)
    fabric.problem("nic_ports_per_gpu",
                   fmt::format("must be a multiple of planes ({}): every plane gets the same number of ports of "
                               "each GPU",
                               s.planes));
  s.port_gbps = fabric.optional_number("port_gbps").value_or(nic_gbps / s.nic_ports_per_gpu);
  s.tiers = fabric.int32("tiers");
  if (auto radix = fabric.optional_integer("switch_radix")) {
    s.switch_radix = static_cast<int>(*radix);
  } else if (s.kind == FabricKind::IB) {
    s.switch_radix = defaults.radix;
  } else {
    const double ports = std::floor(defaults.switch_capacity_gbps / s.port_gbps + 1e-9);
    s.switch_radix = ports > 65536 ? 65536 : static_cast<int>(ports);
    if (s.switch_radix < 2 && !fabric.has("port_gbps"))
      fabric.problem_here(fmt::format("the default port_gbps ({} Gb/s) leaves the default {} Gb/s switch fewer than "
                                      "2 ports: set port_gbps or switch_radix",
                                      s.port_gbps, defaults.switch_capacity_gbps));
    else if (s.switch_radix < 2)
      fabric.problem("port_gbps",
                     fmt::format("leaves the default {} Gb/s switch fewer than 2 ports: set switch_radix",
                                 defaults.switch_capacity_gbps));
  }
  s.oversubscription = fabric.number("oversubscription");
  if (s.tiers == 1 && fabric.has("oversubscription") && s.oversubscription != 1.0)
    fabric.problem("oversubscription", "applies only to fabrics of 2 or 3 tiers (tiers is 1)");
  s.link_latency_us = fabric.number("link_latency_us");
  s.switch_latency_ns = fabric.optional_number("switch_latency_ns").value_or(defaults.switch_latency_ns);
  s.gpu_link_media = fabric.string("gpu_link_media") == "copper" ? Media::COPPER : Media::OPTICS;
  s.switch_link_media = fabric.string("switch_link_media") == "copper" ? Media::COPPER : Media::OPTICS;
  s.ports_per_transceiver = static_cast<int>(fabric.optional_integer("ports_per_transceiver")
                                                 .value_or(std::max(1.0, std::floor(TRANSCEIVER_GBPS / s.port_gbps))));
  s.transceiver_power_w = fabric.number("transceiver_power_w");
  s.switch_power_w = fabric.optional_number("switch_power_w").value_or(defaults.switch_power_w);
  s.reroute_s = fabric.optional_number("reroute_s").value_or(defaults.reroute_s);
  s.routing_efficiency_frac =
      fabric.optional_number("routing_efficiency_frac").value_or(defaults.routing_efficiency_frac);
  const std::string overlap = fabric.string("phase_overlap");
  s.shared = overlap != "isolated";
  s.phase_overlap = overlap == "aligned"       ? PhaseOverlap::ALIGNED
                    : overlap == "interleaved" ? PhaseOverlap::INTERLEAVED
                    : overlap == "random"      ? PhaseOverlap::RANDOM
                                               : PhaseOverlap::DUTY_CYCLE;
  s.ecmp_hash = fabric.string("routing") == "ecmp_hash";
  s.collective_channels = static_cast<int>(fabric.optional_integer("collective_channels").value_or(s.planes));
  s.qps_per_connection = fabric.int32("qps_per_connection");
  for (const char* key : {"collective_channels", "qps_per_connection"})
    if (!s.ecmp_hash && fabric.has(key)) fabric.problem(key, "applies only to routing \"ecmp_hash\" (routing is \"ideal\")");
  if (s.ecmp_hash && !s.shared)
    fabric.problem("routing", "ecmp_hash needs the shared fabric (phase_overlap is \"isolated\")");
  return s;
}

void check_design(const FabricSpec& spec, const hardware::Layout& layout, double nic_gbps, const sim::Node& fabric) {
  const double per_gpu_gbps = spec.gpu_bw_gbps();
  if (per_gpu_gbps > nic_gbps * (1 + 1e-12)) {
    const std::string key = fabric.has("port_gbps") ? "port_gbps" : "nic_ports_per_gpu";
    fabric.problem(key, fmt::format("gives each GPU {} x {} = {} Gb/s of ports, more than its scale-out NIC "
                                    "(/hardware/gpu/nic_gbps = {}): lower port_gbps or nic_ports_per_gpu",
                                    spec.nic_ports_per_gpu, spec.port_gbps, per_gpu_gbps, nic_gbps));
    return;
  }
  const ClosPlan plan(spec, layout);
  for (const auto& p : plan.problems())
    fabric.problem(p.key, p.message);
}

} // namespace dcsim::fabric
