#include "models/hardware/rack_platform.hpp"

#include "sim/units.hpp"

namespace dcsim::hardware {

RackPlatform::RackPlatform(const Layout& layout, const HardwareSpec& hardware, sim::Platform& platform)
    : layout_(&layout) {
  const double speed_flops = hardware.gpu.peak_tflops * 1e12;
  const double port_bytes_per_s = sim::gbps_to_bytes_per_s(hardware.rack.nvlink_gbps / 2.0);
  nvlink_.reserve(static_cast<std::size_t>(layout.gpus()));
  first_gpu_host_ = platform.host_count();
  for (int g = 0; g < layout.gpus(); ++g) {
    const std::string name = layout.gpu_name(g);
    platform.add_host(name, speed_flops);
    nvlink_.push_back(platform.add_duplex_link(name + "/nvlink", port_bytes_per_s, 0.0));
  }
}

int RackPlatform::gpu_of_host(int host) const {
  const int g = host - first_gpu_host_;
  return g >= 0 && g < layout_->gpus() ? g : -1;
}

bool RackPlatform::route(int gpu_a, int gpu_b, std::vector<int>& links, double& latency_s) const {
  (void)latency_s;
  if (gpu_a == gpu_b || layout_->domain_of(gpu_a) != layout_->domain_of(gpu_b)) return false;
  links.push_back(nvlink_[static_cast<std::size_t>(gpu_a)].up);
  links.push_back(nvlink_[static_cast<std::size_t>(gpu_b)].down);
  return true;
}

} // namespace dcsim::hardware
