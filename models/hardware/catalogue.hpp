// GPU catalogue: named GPU kinds with their published (or estimated) figures.
//
// A scenario names a kind in `hardware.gpu.model`; every figure can be overridden by the scenario
// (`hardware.gpu.*`, and `hardware.rack.nvlink_gbps`). Figures are per GPU and DENSE (no 2:4 sparsity):
// NVIDIA's datasheets quote Hopper and Blackwell tensor peaks with sparsity, and those are halved here.
// A model job's precision (`jobs[].model.precision`: bf16, fp8, fp4) chooses its peak (GpuSpec::peak_tflops_at).
//
// docs/hardware.md is the sourced table: one source per figure, with the reason for every estimate.
// tests/unit/hardware/catalogue_test.cpp reads that table and fails when a figure here differs from it.
// Summary (dense TFLOP/s BF16 / FP8 / FP4; HBM GB at TB/s; NVLink GB/s; TDP W; system kW):
//   a100-80g  312 / - / -;             80 at 2.039;  600;  400 W; DGX A100 8 GPUs 6.5 kW
//   h100-sxm  989 / 1,979 / -;         80 at 3.35;   900;  700 W; DGX H100 8 GPUs 10.2 kW
//   h200      989 / 1,979 / -;        141 at 4.8;    900;  700 W; DGX H200 8 GPUs 10.2 kW
//   b200      2,250 / 4,500 / 9,000; 180 at 8;    1,800; 1,000 W; DGX B200 8 GPUs 14.3 kW
//   gb200     2,500 / 5,000 / 10,000; 186 at 8;   1,800; 1,200 W; NVL72 rack 120 kW
//   gb300     2,500 / 5,000 / 15,000; 288 at 8;   1,800; 1,400 W; NVL72 rack 136 kW
//   rubin     4,000* / 16,667 / 35,000; 288 at 22; 3,600; 1,800* W; NVL72 rack 190 kW*
//   (* ESTIMATED: NVIDIA publishes no Rubin BF16 peak, TDP or rack power; see docs/hardware.md.)
// A kind lacking a precision (A100 has no FP8/FP4 tensor cores, Hopper no FP4) has 0 there.
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

/// The system a GPU kind ships in, as its vendor sells and rates it.
enum class SystemKind { HGX_SERVER, NVL72_RACK };

struct GpuKind {
  std::string name;
  double bf16_tflops = 0;   ///< dense BF16 peak, TFLOP/s
  double fp8_tflops = 0;    ///< dense FP8 peak, TFLOP/s (0: unsupported)
  double fp4_tflops = 0;    ///< dense FP4 (NVFP4) peak, TFLOP/s (0: unsupported)
  double hbm_gb = 0;        ///< HBM capacity, GB
  double hbm_tb_per_s = 0;  ///< HBM bandwidth, TB/s
  double nvlink_gbps = 0;   ///< NVLink bandwidth per GPU as datasheets quote it (both directions), Gb/s
  double nic_gbps = 0;      ///< scale-out NIC bandwidth per GPU (per direction), Gb/s
  double power_w = 0;       ///< board power (TDP), W
  double compute_efficiency_frac = 0; ///< achievable share of the dense peak for GEMMs
  double hbm_efficiency_frac = 0;     ///< achievable share of HBM bandwidth for element-wise kernels
  double nvlink_efficiency_frac = 0;  ///< collective bus bandwidth ÷ NVLink bandwidth per direction
  double nic_efficiency_frac = 0;     ///< collective bus bandwidth ÷ NIC line rate
  double nvlink_latency_us = 0;       ///< per-step latency of a collective over NVLink, µs
  double nic_latency_us = 0;          ///< per-step latency of a collective across the scale-out network, µs
  std::string estimated;    ///< which figures are estimates (empty: all published)
  SystemKind system = SystemKind::HGX_SERVER; ///< what the GPU ships in
  int system_gpus = 0;                        ///< GPUs of that system (8 for a server, 72 for a rack)
  double system_power_kw = 0;                 ///< its published maximum power (everything in it), kW

  /// The system's power that is not its GPUs' TDP (CPUs, switches, NICs, fans, conversion), kW.
  double system_base_power_kw() const { return system_power_kw - system_gpus * power_w / 1000.0; }
};

const std::vector<GpuKind>& gpu_catalogue();
const GpuKind* find_gpu_kind(std::string_view name);
std::vector<std::string> gpu_kind_names();

} // namespace dcsim::hardware
