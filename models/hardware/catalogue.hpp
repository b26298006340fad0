// GPU catalogue: named GPU kinds with their published (or estimated) figures.
//
// A scenario names a kind in `hardware.gpu.model`; every figure can be overridden by the scenario.
// Figures are per GPU. FLOP/s are dense (no 2:4 sparsity). Sources:
//   a100-80g  NVIDIA A100 datasheet (2021): 312 TFLOPS BF16, 80 GB HBM2e at 2.039 TB/s, NVLink 3 600 GB/s,
//             400 W (SXM). NIC 200 Gb/s HDR per GPU as in Megatron-LM SC'21 (8 x 200 Gb/s per node).
//   h100-sxm  NVIDIA H100 datasheet (2023): 989 TFLOPS BF16, 1,979 FP8, 80 GB HBM3 at 3.35 TB/s,
//             NVLink 4 900 GB/s, 700 W; ConnectX-7 400 Gb/s per GPU.
//   gb200     NVIDIA GB200 NVL72 (2024): 2.5 PFLOPS BF16 dense per GPU, 5 FP8, 10 FP4; 186 GB HBM3e at
//             8 TB/s; NVLink 5 1.8 TB/s; 1,200 W; 400 Gb/s per GPU (CONTEXT.md §1).
//   gb300     NVIDIA GB300 NVL72 (2025): BF16/FP8 as GB200, 15 PFLOPS FP4 dense; 288 GB HBM3e at 8 TB/s;
//             NVLink 5 1.8 TB/s; 1,400 W; ConnectX-8 800 Gb/s per GPU (CONTEXT.md §1).
//   rubin     NVIDIA Vera Rubin NVL72 announcements (2026): 35 PFLOPS NVFP4 training; 288 GB HBM4 at
//             ~22 TB/s; NVLink 6 3.6 TB/s; ConnectX-9 1.6 Tb/s. ESTIMATED: dense BF16 ~4 PFLOPS (analyst
//             estimate, CONTEXT.md §1), FP8 = 2 x BF16, power 1,800 W (Max-Q; Max-P ~2,300 W).
// A kind lacking a precision (A100 has no FP8/FP4 tensor cores) has 0 there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::hardware {

struct GpuKind {
  std::string name;
  double bf16_tflops = 0;   ///< dense BF16 peak, TFLOP/s
  double fp8_tflops = 0;    ///< dense FP8 peak, TFLOP/s (0: unsupported)
  double fp4_tflops = 0;    ///< dense FP4 peak, TFLOP/s (0: unsupported)
  double hbm_gb = 0;        ///< HBM capacity, GB
  double hbm_tb_per_s = 0;  ///< HBM bandwidth, TB/s
  double nvlink_gbps = 0;   ///< NVLink bandwidth per GPU as datasheets quote it (both directions), Gb/s
  double nic_gbps = 0;      ///< scale-out NIC bandwidth per GPU, Gb/s
  double power_w = 0;       ///< board power, W
  std::string estimated;    ///< which figures are estimates (empty: all published)
};

const std::vector<GpuKind>& gpu_catalogue();
const GpuKind* find_gpu_kind(std::string_view name);
std::vector<std::string> gpu_kind_names();

} // namespace dcsim::hardware
