#include "models/hardware/catalogue.hpp"

namespace dcsim::hardware {

const std::vector<GpuKind>& gpu_catalogue() {
  // NVLink figures: the datasheets' GB/s per GPU (both directions summed) x 8 bits.
  static const std::vector<GpuKind> kinds = {
      {"a100-80g", 312, 0, 0, 80, 2.039, 4800, 200, 400, ""},
      {"h100-sxm", 989, 1979, 0, 80, 3.35, 7200, 400, 700, ""},
      {"gb200", 2500, 5000, 10000, 186, 8.0, 14400, 400, 1200, ""},
      {"gb300", 2500, 5000, 15000, 288, 8.0, 14400, 800, 1400, ""},
      {"rubin", 4000, 8000, 35000, 288, 22.0, 28800, 1600, 1800, "bf16_tflops, fp8_tflops, power_w"},
  };
  return kinds;
}

const GpuKind* find_gpu_kind(std::string_view name) {
  for (const auto& k : gpu_catalogue())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> gpu_kind_names() {
  std::vector<std::string> names;
  for (const auto& k : gpu_catalogue())
    names.push_back(k.name);
  return names;
}

} // namespace dcsim::hardware
