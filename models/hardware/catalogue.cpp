#include "models/hardware/catalogue.hpp"

namespace dcsim::hardware {

namespace {
// Step-time model parameters (see catalogue.hpp for their sources). The a100-80g values are fitted on
// Megatron-LM SC'21 Table 1; the other kinds reuse them as estimates.
constexpr double COMPUTE_EFFICIENCY_FRAC = 0.68; // fitted (a100-80g)
constexpr double HBM_EFFICIENCY_FRAC = 0.80;     // fitted (a100-80g)
constexpr double NVLINK_EFFICIENCY_FRAC = 0.80;  // estimate (nccl-tests on DGX A100)
constexpr double NIC_EFFICIENCY_FRAC = 0.90;     // estimate
constexpr double NVLINK_LATENCY_US = 1.0;        // estimate
constexpr double NIC_LATENCY_US = 5.0;           // estimate
constexpr const char* STEP_ESTIMATES = "nvlink_efficiency_frac, nic_efficiency_frac, nvlink_latency_us, nic_latency_us";

GpuKind kind(std::string name, double bf16, double fp8, double fp4, double hbm_gb, double hbm_tb_per_s,
             double nvlink_gbps, double nic_gbps, double power_w, std::string estimated) {
  return GpuKind{std::move(name),         bf16,
                 fp8,                     fp4,
                 hbm_gb,                  hbm_tb_per_s,
                 nvlink_gbps,             nic_gbps,
                 power_w,                 COMPUTE_EFFICIENCY_FRAC,
                 HBM_EFFICIENCY_FRAC,     NVLINK_EFFICIENCY_FRAC,
                 NIC_EFFICIENCY_FRAC,     NVLINK_LATENCY_US,
                 NIC_LATENCY_US,          std::move(estimated)};
}
} // namespace

const std::vector<GpuKind>& gpu_catalogue() {
  // NVLink figures: the datasheets' GB/s per GPU (both directions summed) x 8 bits.
  const std::string fitted_elsewhere = std::string("compute_efficiency_frac, hbm_efficiency_frac, ") + STEP_ESTIMATES;
  static const std::vector<GpuKind> kinds = {
      kind("a100-80g", 312, 0, 0, 80, 2.039, 4800, 200, 400, STEP_ESTIMATES),
      kind("h100-sxm", 989, 1979, 0, 80, 3.35, 7200, 400, 700, fitted_elsewhere),
      kind("gb200", 2500, 5000, 10000, 186, 8.0, 14400, 400, 1200, fitted_elsewhere),
      kind("gb300", 2500, 5000, 15000, 288, 8.0, 14400, 800, 1400, fitted_elsewhere),
      kind("rubin", 4000, 8000, 35000, 288, 22.0, 28800, 1600, 1800,
           "bf16_tflops, fp8_tflops, power_w, " + fitted_elsewhere),
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
