// Small builders shared by the fabric unit tests.
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/fabric/spec.hpp"
#include "models/hardware/layout.hpp"
#include "models/hardware/rack_platform.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

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

/// NVL72 racks (four unless said) with their NVLink ports and the fabric, routed like models/world.cpp would.
struct Bench {
  hardware::HardwareSpec hardware;
  hardware::Layout layout;
  ClosGraph graph;
  std::unique_ptr<sim::Platform> platform;
  std::unique_ptr<hardware::RackPlatform> racks;
  std::unique_ptr<FabricPlatform> fabric;

  explicit Bench(const FabricSpec& spec, int rack_count = 4)
      : hardware(make_hardware()), layout(hardware, hardware::ClusterSpec{rack_count}), graph(ClosPlan(spec, layout)) {
    platform = std::make_unique<sim::Platform>("fabric-test");
    racks = std::make_unique<hardware::RackPlatform>(layout, hardware, *platform);
    fabric = std::make_unique<FabricPlatform>(graph, *platform);
    platform->set_router([this](int a, int b, std::vector<int>& links, double& latency_s) {
      const int ga = racks->gpu_of_host(a), gb = racks->gpu_of_host(b);
      if (racks->route(ga, gb, links, latency_s)) return;
      if (fabric->route(ga, gb, links, latency_s)) return;
      throw std::logic_error("no route");
    });
    platform->seal();
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
  simgrid::s4u::Host* host(int gpu) const { return platform->host(racks->gpu_host(gpu)); }

  /// Sends `bytes` from each src[i] to dst[i] at once, one actor per transfer so that each completion
  /// date is its own; returns the dates (-1: the transfer failed).
  std::vector<double> transfer(const std::vector<int>& src, const std::vector<int>& dst, double bytes) {
    std::vector<double> done(src.size(), -2);
    for (std::size_t i = 0; i < src.size(); ++i)
      simgrid::s4u::Actor::create("driver" + std::to_string(i), host(src[i]), [this, &done, &src, &dst, bytes, i] {
        try {
          simgrid::s4u::Comm::sendto(host(src[i]), host(dst[i]), bytes);
          done[i] = simgrid::s4u::Engine::get_clock();
        } catch (const simgrid::NetworkFailureException&) {
          done[i] = -1;
        }
      });
    simgrid::s4u::Engine::get_instance()->run();
    return done;
  }
};

} // namespace dcsim::fabric::test
