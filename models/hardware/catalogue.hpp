// GPU catalogue: named GPU kinds with their published (or estimated) figures.
//
// A scenario names a kind in `hardware.gpu.model`; every figure can be overridden by the scenario
// (`hardware.gpu.*`, and `hardware.rack.nvlink_gbps`). Figures are per GPU. FLOP/s are dense (no 2:4
// sparsity). Sources:
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
//
// Achievable fractions and latencies used by the step-time model (models/workload/step_model.hpp):
//   compute_efficiency_frac  share of the dense peak that transformer GEMMs reach. FITTED for a100-80g
//                            (0.68) on Megatron-LM SC'21 Table 1 (tests/unit/workload/step_model_test.cpp;
//                            README "Step-time model"); ESTIMATED equal for the other kinds (no calibration
//                            data for them in the repository yet).
//   hbm_efficiency_frac      share of the HBM bandwidth that bandwidth-bound (element-wise) kernels reach.
//                            FITTED for a100-80g (0.80) with the same table, consistent with the 80-90% that
//                            STREAM-like kernels reach on HBM; ESTIMATED equal for the other kinds.
//   nvlink_efficiency_frac   NCCL bus bandwidth ÷ NVLink bandwidth per direction. ESTIMATED 0.80: nccl-tests
//                            all_reduce reaches ~230-240 GB/s bus bandwidth on 8 x A100 (300 GB/s per
//                            direction); assumed the same for later generations.
//   nic_efficiency_frac      NCCL bus bandwidth ÷ NIC line rate across the scale-out network. ESTIMATED 0.90
//                            (RDMA collectives over InfiniBand/RoCE reach ~90% of line rate in nccl-tests).
//   nvlink_latency_us        per-step latency (alpha) of a collective step over NVLink. ESTIMATED 1 µs.
//   nic_latency_us           per-step latency (alpha) of a collective step across the scale-out network
//                            (NIC, switches, NCCL protocol). ESTIMATED 5 µs. Until the fabric model feeds the
//                            step model, this and nic_gbps stand for the whole scale-out network.
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
  double nic_gbps = 0;      ///< scale-out NIC bandwidth per GPU (per direction), Gb/s
  double power_w = 0;       ///< board power, W
  double compute_efficiency_frac = 0; ///< achievable share of the dense peak for GEMMs
  double hbm_efficiency_frac = 0;     ///< achievable share of HBM bandwidth for element-wise kernels
  double nvlink_efficiency_frac = 0;  ///< collective bus bandwidth ÷ NVLink bandwidth per direction
  double nic_efficiency_frac = 0;     ///< collective bus bandwidth ÷ NIC line rate
  double nvlink_latency_us = 0;       ///< per-step latency of a collective over NVLink, µs
  double nic_latency_us = 0;          ///< per-step latency of a collective across the scale-out network, µs
  std::string estimated;    ///< which figures are estimates (empty: all published)
};

const std::vector<GpuKind>& gpu_catalogue();
const GpuKind* find_gpu_kind(std::string_view name);
std::vector<std::string> gpu_kind_names();

} // namespace dcsim::hardware
