#include "models/serving/gpu_figures.hpp"

#include <vector>

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

namespace {
// Kinds the catalogue lacks (sources in gpu_figures.hpp). Same fields as hardware::GpuKind.
std::vector<hardware::GpuKind> supplement() {
  hardware::GpuKind h200;
  h200.name = "h200-sxm";
  h200.bf16_tflops = 989;
  h200.fp8_tflops = 1979;
  h200.hbm_gb = 141;
  h200.hbm_tb_per_s = 4.8;
  h200.nvlink_gbps = 7200;
  h200.nic_gbps = 400;
  h200.power_w = 700;
  hardware::GpuKind b200;
  b200.name = "b200";
  b200.bf16_tflops = 2250;
  b200.fp8_tflops = 4500;
  b200.fp4_tflops = 9000;
  b200.hbm_gb = 180;
  b200.hbm_tb_per_s = 8.0;
  b200.nvlink_gbps = 14400;
  b200.nic_gbps = 400;
  b200.power_w = 1000;
  return {h200, b200};
}
} // namespace

GpuFigures find_gpu_figures(std::string_view name, int domain_gpus) {
  if (const auto* k = hardware::find_gpu_kind(name)) return gpu_figures(*k, domain_gpus);
  static const std::vector<hardware::GpuKind> extra = supplement();
  for (const auto& k : extra)
    if (k.name == name) return gpu_figures(k, domain_gpus);
  return {};
}

} // namespace dcsim::serving
