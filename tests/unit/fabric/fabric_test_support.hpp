// Small builders shared by the fabric unit tests.
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/fabric/spec.hpp"
#include "models/hardware/layout.hpp"
#include "sim/platform.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

/// NVL72 racks (four unless said) and the fabric's platform, as models/world.cpp builds them.
struct Bench {
  hardware::HardwareSpec hardware;
  hardware::Layout layout;
  ClosGraph graph;
  std::unique_ptr<FabricPlatform> fabric;
  sim::EventQueue queue; ///< drives transfer()

  explicit Bench(const FabricSpec& spec, int rack_count = 4)
      : hardware(make_hardware()), layout(hardware, hardware::ClusterSpec{rack_count}), graph(ClosPlan(spec, layout)) {
    fabric = std::make_unique<FabricPlatform>(graph, "fabric-test");
    fabric->platform().bind(queue);
  }
  static hardware::HardwareSpec make_hardware() {
    hardware::HardwareSpec h;
    h.gpu.peak_tflops = 4000;
    h.rack.kind = hardware::RackKind::NVL72;
    h.rack.gpus = 72;
    h.rack.gpus_per_tray = 4;
    h.rack.nvlink_gbps = 28800;
    return h;
  }

  /// Sends `bytes` from each src[i] to dst[i] at once (GPU indices are host indices); returns each
  /// one's duration, s (-1: the transfer failed).
  std::vector<double> transfer(const std::vector<int>& src, const std::vector<int>& dst, double bytes) {
    std::vector<double> done(src.size(), -2);
    const double start_s = sim::Platform::clock_s();
    for (std::size_t i = 0; i < src.size(); ++i)
      fabric->platform().transfer(src[i], dst[i], bytes, [&done, i, start_s](bool ok) {
        done[i] = ok ? sim::Platform::clock_s() - start_s : -1;
      });
    fabric->platform().run_until(queue.now() + sim::to_ticks(1e3));
    return done;
  }
};

} // namespace dcsim::fabric::test
