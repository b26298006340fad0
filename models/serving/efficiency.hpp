// Physical efficiency factors of the serving model, per GPU generation and software epoch.
//
// Every set names its epoch (engine, version, date): a cross-generation ratio compares like with like,
// or says that it mixes epochs. Factors (used in models/serving/perf_model.hpp):
//   gemm_frac          share of the dense peak that GEMMs reach (weights × tokens)
//   hbm_frac           share of HBM bandwidth reached streaming weights
//   kv_read_frac       share of HBM bandwidth the attention kernels reach reading the KV cache
//   layer_overhead_us  fixed time per layer per forward step (kernel launches, synchronisation, norms)
//   step_overhead_ms   fixed time per forward step (scheduling, sampling, host work)
//   nvlink_frac, nic_frac          collective bus bandwidth ÷ link bandwidth per direction
//   collective_latency_us          latency of one collective (all-reduce, dispatch or combine)
//   runtime_gb         HBM per GPU kept by the runtime and activations, GB
//   kv_cache_frac      share of the HBM left after weights and runtime given to the KV cache
//   max_batch_per_rank the engine's cap on requests per attention rank
//   max_num_tokens     tokens per forward step (prefill chunk + decodes)
// Sources of the fixed factors (SERVING.md §6, the calibration set):
//   hbm_frac    blackwell 0.92: GB200 reaches 7.35 of 8 TB/s (Azure ND GB200 v6 inference blog, 2025);
//               hopper 0.80: AIConfigurator's decode HBM efficiency default.
//   gemm_frac   starting point of the fit: blackwell 0.55, GB200 FP8 GEMM 2,744 of 5,000 TFLOPS (Azure
//               blog); hopper 0.61, H100 BF16 matmul 80.3% times GB200's FP8/BF16 ratio (0.55/0.729).
//               The fit lowers it to ~0.2: serving's GEMMs are small grouped MoE GEMMs (a few tokens per
//               expert), far from a large dense GEMM's efficiency.
//   collective_latency_us 10: AIConfigurator's p2p latency ("nonofficial correction based on observations").
//   max_batch_per_rank 512, max_num_tokens 8192: TensorRT-LLM's curated throughput configurations and
//               AIConfigurator's decode_max_batch_size (engine settings, not fitted).
//   runtime_gb 6, nvlink_frac 0.8, nic_frac 0.9, kv_cache_frac 0.9: estimates (0.9 is the perf
//               overview's stated KV cache fraction).
// FITTED (gemm_frac, kv_read_frac, layer_overhead_us, step_overhead_ms) on the TensorRT-LLM Performance Overview
// rows of SERVING.md §6 only (models/serving/calibration.hpp; docs/serving.md has the table, each
// point's error and its leave-one-out error). GB300 and Rubin have no calibration data: they use the
// Blackwell set, an assumption stated wherever their results appear.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::serving {

struct Efficiency {
  std::string generation; ///< "hopper" or "blackwell"
  std::string epoch;      ///< engine, version and date the fitted factors belong to
  double gemm_frac = 0.55;
  double hbm_frac = 0.9;
  double kv_read_frac = 0.7;
  double layer_overhead_us = 0;
  double step_overhead_ms = 0;
  double nvlink_frac = 0.8;
  double nic_frac = 0.9;
  double collective_latency_us = 10;
  double runtime_gb = 6;
  double kv_cache_frac = 0.9;
  int max_batch_per_rank = 512;
  int max_num_tokens = 8192;
};

/// The generation a GPU kind belongs to ("hopper" for h100/h200, "blackwell" for b200/gb200/gb300 and,
/// for lack of data, rubin).
std::string generation_of(std::string_view gpu);
/// The calibrated set for a generation (the Blackwell set for an unknown one).
Efficiency efficiency_for(std::string_view gpu);
/// The fixed (unfitted) factors of a generation: the starting point of the fit.
Efficiency fixed_efficiency(std::string_view generation);

} // namespace dcsim::serving
