// Small builders shared by the fabric unit tests.
#pragma once

#include "models/fabric/spec.hpp"
#include "models/hardware/layout.hpp"

namespace dcsim::fabric::test {

/// HGX servers of 8 GPUs, 4 per rack: `servers` must be a multiple of 4.
inline hardware::Layout hgx_layout(int servers) {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::HGX;
  h.rack.gpus_per_node = 8;
  h.rack.nodes_per_rack = 4;
  return hardware::Layout(h, hardware::ClusterSpec{servers / 4});
}

/// NVL72 racks of 72 GPUs in trays of 4.
inline hardware::Layout nvl72_layout(int racks) {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.gpus = 72;
  h.rack.gpus_per_tray = 4;
  return hardware::Layout(h, hardware::ClusterSpec{racks});
}

inline FabricSpec make_spec(int planes, double port_gbps, int tiers, int radix, double oversubscription = 1.0,
                            int nic_ports_per_gpu = 0) {
  FabricSpec s;
  s.planes = planes;
  s.nic_ports_per_gpu = nic_ports_per_gpu > 0 ? nic_ports_per_gpu : planes;
  s.port_gbps = port_gbps;
  s.tiers = tiers;
  s.switch_radix = radix;
  s.oversubscription = oversubscription;
  s.switch_latency_ns = 600;
  s.link_latency_us = 0.5;
  s.ports_per_transceiver = 1;
  s.switch_power_w = 3000;
  s.reroute_s = 1;
  s.routing_efficiency_frac = 1.0;
  return s;
}

} // namespace dcsim::fabric::test
