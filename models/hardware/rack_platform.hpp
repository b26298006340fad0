// The SimGrid hosts and NVLink links of the racks.
//
// Every GPU is a SimGrid host whose speed is its peak FLOP/s. Each GPU has one full-duplex NVLink port
// to its domain's NVLink switch (an NVL72 rack's switch trays, or an HGX server's NVSwitch), modelled as
// a link of half the datasheet bandwidth per direction; the switch itself is non-blocking, so a route
// between two GPUs of one domain is [port(a) up, port(b) down]. Routes between domains belong to the
// scale-out fabric.
#pragma once

#include "models/hardware/layout.hpp"
#include "sim/platform.hpp"

#include <vector>

namespace dcsim::hardware {

class RackPlatform {
public:
  /// Creates one host per GPU (named as Layout::gpu_name) and its NVLink port.
  RackPlatform(const Layout& layout, const HardwareSpec& hardware, sim::Platform& platform);

  int gpu_host(int gpu) const { return first_gpu_host_ + gpu; }
  /// GPU index of a host index, or -1 when the host is not a GPU.
  int gpu_of_host(int host) const;
  /// Appends the NVLink route between two GPUs of one domain; returns false when they are in different
  /// domains (or are the same GPU).
  bool route(int gpu_a, int gpu_b, std::vector<int>& links, double& latency_s) const;

private:
  const Layout* layout_;
  int first_gpu_host_ = 0;
  std::vector<sim::Platform::DuplexLink> nvlink_; ///< per GPU
};

} // namespace dcsim::hardware
