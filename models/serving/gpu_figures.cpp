#include "models/serving/gpu_figures.hpp"

namespace dcsim::serving {

double GpuFigures::peak_tflops(hardware::Precision precision) const {
  switch (precision) {
  case hardware::Precision::FP4:
    if (fp4_tflops > 0) return fp4_tflops;
    [[fallthrough]];
  case hardware::Precision::FP8:
    if (fp8_tflops > 0) return fp8_tflops;
    [[fallthrough]];
  case hardware::Precision::BF16: return bf16_tflops;
  }
  return bf16_tflops;
}

GpuFigures gpu_figures(const hardware::GpuKind& kind, int domain_gpus) {
  GpuFigures g;
  g.name = kind.name;
  g.bf16_tflops = kind.bf16_tflops;
  g.fp8_tflops = kind.fp8_tflops;
  g.fp4_tflops = kind.fp4_tflops;
  g.hbm_gb = kind.hbm_gb;
  g.hbm_tb_per_s = kind.hbm_tb_per_s;
  g.nvlink_gb_per_s = kind.nvlink_gbps / 8.0 / 2.0;
  g.nic_gb_per_s = kind.nic_gbps / 8.0;
  g.domain_gpus = domain_gpus;
  g.power_w = kind.power_w;
  return g;
}

GpuFigures find_gpu_figures(std::string_view name, int domain_gpus) {
  if (const auto* k = hardware::find_gpu_kind(name)) return gpu_figures(*k, domain_gpus);
  return {};
}

} // namespace dcsim::serving
