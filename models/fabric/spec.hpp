// The scale-out fabric of a scenario (`/fabric`): a multi-plane, rail-optimised Clos of RoCE (Spectrum-X)
// or InfiniBand (Quantum) switches. The structure built from it is described in clos_plan.hpp.
//
// Each GPU has `nic_ports_per_gpu` NIC ports of `port_gbps`, spread evenly over `planes` independent
// planes (p = nic_ports_per_gpu / planes ports per plane, all on the same leaf of that plane). Each plane
// is a Clos of `tiers` tiers of radix-k switches (k = `switch_radix`); a leaf splits its ports into down
// (to GPUs) and up (to the next tier) in the ratio `oversubscription` : 1:
//     d = floor(k * r / (1 + r)) down ports,  u = k - d up ports      (r = 1: d = u = k / 2)
// and the tiers above the leaf are non-blocking. GPUs attached per plane at most (p ports per GPU):
//     1 tier   k / p                       (one switch per plane)
//     2 tiers  k * d / p                   (= k^2/2 for r = 1, p = 1: k = 512 -> 131,072; 144 -> 10,368)
//     3 tiers  k * floor(k/2) * d / p      (= k^3/4 for r = 1, p = 1)
//
// Defaults and their sources (CONTEXT.md §3 unless stated; "estimate" marks a number that is not
// published and should be overridden when a vendor figure is known):
//   planes 1, tiers 2, oversubscription 1 (the seeds' designs are non-blocking).
//   port_gbps = /hardware/gpu/nic_gbps / nic_ports_per_gpu (ConnectX-9: 1.6 Tb/s = 8 x 200G or 2 x 800G).
//   switch_radix: roce 102,400 / port_gbps (Spectrum-6 class, 102.4 Tb/s: 512 x 200G or 128 x 800G);
//     ib 144 (Quantum-X800: 144 x 800G).
//   link_latency_us 0.5: estimate, ~100 m of fibre at ~5 ns/m (light at ~2/3 c in glass).
//   switch_latency_ns: ib 130 (Mellanox Quantum HDR switch datasheet port-to-port figure, assumed for
//     Quantum-X800); roce 600 (estimate for a large shared-buffer Ethernet ASIC; no datasheet figure).
//   gpu_link_media "optics": rail-optimised leaves sit outside the rack (GPU i of many racks meets on one
//     leaf), beyond copper reach; "copper" models leaves within a row (DAC/ACC, no transceivers).
//   switch_link_media "optics": leaf-spine runs cross rows.
//   ports_per_transceiver = max(1, floor(800 / port_gbps)): an 800G-class module (OSFP, 8 x 100G lanes)
//     carries 800 / port_gbps ports by breakout, on switches and NICs alike.
//   transceiver_power_w 18: the per-port optics power budget of NVIDIA's SN5600 800G switch (SN5000
//     hardware manual, "Data Interfaces": 18 W per OSFP port); an upper figure for 800G modules.
//   switch_power_w: estimates, without pluggable optics. roce 3,000 W: the 51.2 Tb/s SN5600 ships two
//     3 kW supplies of which up to 64 x 18 W feed optics; a 102.4 Tb/s ASIC roughly doubles the switch
//     core. ib 3,200 W: Quantum-X800 (115.2 Tb/s) scaled from the same basis.
//   reroute_s: time from a fabric fault to traffic flowing on the surviving paths. ib 0.004: Mellanox
//     SHIELD (2017) recovers ~5,000x faster than a subnet-manager recomputation of 10-20 s, i.e.
//     2-4 ms. roce 1.0: estimate for a routed Clos (BFD detection 3 x 300 ms plus BGP withdrawal);
//     Spectrum-X's NIC-side load balancing reacts faster: lower it to model that.
//   routing_efficiency_frac: share of switch-to-switch capacity usable under load (adaptive routing vs
//     ECMP hash collisions). roce 0.95: NVIDIA, xAI Colossus announcement (Oct 2024): Spectrum-X keeps
//     95% data throughput where traditional Ethernet reaches 60% (use 0.60 for plain ECMP Ethernet).
//     ib 0.95: assumed equal (adaptive routing in Quantum switches; no comparable published figure).
//   phase_overlap duty_cycle: jobs whose flows meet on a saturable bundle slow each other by the
//     first-order mean over random phase offsets (phase_play.hpp); "isolated" prices every job alone.
//   routing ideal (today's assumption: Spectrum-X / InfiniBand adaptive routing); ecmp_hash pins each of
//     collective_channels (default: one per plane) x qps_per_connection (NCCL's default 1) subflows
//     of a connection to one uplink (ecmp_hash.hpp).
#pragma once

#include "models/fabric/phase_play.hpp"
#include "models/hardware/layout.hpp"
#include "sim/json_reader.hpp"

#include <string>
#include <string_view>

namespace dcsim::fabric {

enum class FabricKind { ROCE, IB };
enum class Media { COPPER, OPTICS };
std::string_view fabric_kind_name(FabricKind kind);
std::string_view media_name(Media media);

struct FabricSpec {
  FabricKind kind = FabricKind::ROCE;
  int planes = 1;
  double port_gbps = 0;
  int nic_ports_per_gpu = 1;
  int tiers = 2;
  int switch_radix = 0;
  double oversubscription = 1.0; ///< leaf down : up capacity, >= 1
  double link_latency_us = 0.5;
  double switch_latency_ns = 0;
  Media gpu_link_media = Media::OPTICS;
  Media switch_link_media = Media::OPTICS;
  int ports_per_transceiver = 1;
  double transceiver_power_w = 18;
  double switch_power_w = 0;
  double reroute_s = 0;
  double routing_efficiency_frac = 1.0;
  bool shared = true; ///< jobs share the fabric (phase_overlap other than "isolated")
  PhaseOverlap phase_overlap = PhaseOverlap::DUTY_CYCLE;
  bool ecmp_hash = false;      ///< routing "ecmp_hash" (else "ideal")
  int collective_channels = 1; ///< ecmp_hash: channels per connection
  int qps_per_connection = 1;  ///< ecmp_hash: QPs per channel

  int ports_per_plane() const { return nic_ports_per_gpu / planes; }
  double gpu_bw_gbps() const { return port_gbps * nic_ports_per_gpu; } ///< scale-out bandwidth per GPU
};

const sim::KeyTable& fabric_keys();

/// Decodes `/fabric`. `nic_gbps` is the GPU's scale-out NIC bandwidth (the default of port_gbps).
/// Reports problems of the block alone; design checks against the cluster are in check_design.
FabricSpec decode_fabric(const sim::Node& fabric, double nic_gbps);

/// Cross-checks a decoded spec against the cluster: impossible designs (more GPUs than the radix and
/// tiers attach, rail-optimised leaves beyond what the tiers connect) and inconsistent keys (more port
/// bandwidth than the GPU's NIC). Problems are located at the key to change.
void check_design(const FabricSpec& spec, const hardware::Layout& layout, double nic_gbps, const sim::Node& fabric);

} // namespace dcsim::fabric
