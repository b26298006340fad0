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
constexpr double BITS_PER_BYTE = 8;

/// The published figures of one kind, in the units docs/hardware.md uses.
struct Published {
  double bf16, fp8, fp4;        // dense TFLOP/s
  double hbm_gb, hbm_tb_per_s;  // capacity, bandwidth
  double nvlink_gb_per_s;       // per GPU, both directions, GB/s
  double nic_gbps;              // per GPU, Gb/s
  double tdp_w;
  SystemKind system;
  int system_gpus;
  double system_power_kw;
};

GpuKind kind(std::string name, const Published& p, std::string estimated) {
  GpuKind k;
  k.name = std::move(name);
  k.bf16_tflops = p.bf16;
  k.fp8_tflops = p.fp8;
  k.fp4_tflops = p.fp4;
  k.hbm_gb = p.hbm_gb;
  k.hbm_tb_per_s = p.hbm_tb_per_s;
  k.nvlink_gbps = p.nvlink_gb_per_s * BITS_PER_BYTE;
  k.nic_gbps = p.nic_gbps;
  k.power_w = p.tdp_w;
  k.compute_efficiency_frac = COMPUTE_EFFICIENCY_FRAC;
  k.hbm_efficiency_frac = HBM_EFFICIENCY_FRAC;
  k.nvlink_efficiency_frac = NVLINK_EFFICIENCY_FRAC;
  k.nic_efficiency_frac = NIC_EFFICIENCY_FRAC;
  k.nvlink_latency_us = NVLINK_LATENCY_US;
  k.nic_latency_us = NIC_LATENCY_US;
  k.estimated = std::move(estimated);
  k.system = p.system;
  k.system_gpus = p.system_gpus;
  k.system_power_kw = p.system_power_kw;
  return k;
}
} // namespace

const std::vector<GpuKind>& gpu_catalogue() {
  // Flat table: one row per kind, the figures of docs/hardware.md (sources there).
  constexpr SystemKind HGX = SystemKind::HGX_SERVER;
  constexpr SystemKind NVL72 = SystemKind::NVL72_RACK;
  // Rubin's dense FP8: 1.2 EFLOP/s of FP8 training per Vera Rubin NVL144 (72 packages), GTC 2025.
  constexpr double RUBIN_FP8_TFLOPS = 1.2e6 / 72;
  const std::string fitted_elsewhere = std::string("compute_efficiency_frac, hbm_efficiency_frac, ") + STEP_ESTIMATES;
  static const std::vector<GpuKind> kinds = {
      kind("a100-80g", {312, 0, 0, 80, 2.039, 600, 200, 400, HGX, 8, 6.5}, STEP_ESTIMATES),
      kind("h100-sxm", {989, 1979, 0, 80, 3.35, 900, 400, 700, HGX, 8, 10.2}, fitted_elsewhere),
      kind("h200", {989, 1979, 0, 141, 4.8, 900, 400, 700, HGX, 8, 10.2}, fitted_elsewhere),
      kind("b200", {2250, 4500, 9000, 180, 8.0, 1800, 400, 1000, HGX, 8, 14.3}, fitted_elsewhere),
      kind("gb200", {2500, 5000, 10000, 186, 8.0, 1800, 400, 1200, NVL72, 72, 120}, fitted_elsewhere),
      kind("gb300", {2500, 5000, 15000, 288, 8.0, 1800, 800, 1400, NVL72, 72, 136}, fitted_elsewhere),
      kind("rubin", {4000, RUBIN_FP8_TFLOPS, 35000, 288, 22.0, 3600, 1600, 1800, NVL72, 72, 190},
           "bf16_tflops, power_w, system_power_kw, " + fitted_elsewhere),
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
