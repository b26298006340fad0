// Calibration of the serving model's fitted factors on SERVING.md §6's calibration set, and nothing else.
//
// The set: the TensorRT-LLM Performance Overview (docs/source/developer-guide/perf-overview.md at commit
// 03e27c7d; trtllm-bench, PyTorch backend, maximum throughput with every request queued, uniform synthetic
// ISL/OSL, KV cache fraction 0.90-0.95, FP8 KV cache) rows for Qwen3-235B-A22B and GPT-OSS-120B on B200,
// GB200, H200 and H100: output tokens/s per GPU. A maximum-throughput run holds the largest batch, so the
// model's figure is its operating point at B_max (aggregated continuous batching, prefill interleaved).
// Per generation (hopper: H100 and H200; blackwell: B200 and GB200) the fit minimises the mean squared
// log error over that generation's points by Nelder-Mead over (gemm_frac in [0.1, 1], kv_read_frac in
// [0.2, 1], layer_overhead_us in [0, 200], step_overhead_ms in [0, 50]); the other factors stay at their measured or stated values
// (efficiency.hpp). Leave-one-out: refit without the point and predict it.
#pragma once

#include "models/serving/efficiency.hpp"
#include "models/serving/perf_model.hpp"

#include <string>
#include <vector>

namespace dcsim::serving {

struct CalibrationPoint {
  std::string model;   ///< a preset of model_shape.hpp
  std::string gpu;     ///< a kind of gpu_figures.hpp
  int domain_gpus = 8; ///< 8 for HGX, 72 for NVL72
  InstanceConfig config;
  int isl = 0, osl = 0;
  double published_tokens_per_s_per_gpu = 0; ///< output tokens/s per GPU
};

/// The calibration set (SERVING.md §6).
std::vector<CalibrationPoint> calibration_set();

/// The model's maximum-throughput output tokens/s per GPU for a point under `eff`.
double modelled_max_throughput(const CalibrationPoint& p, const Efficiency& eff);

/// Fits gemm_frac, kv_read_frac, layer_overhead_us and step_overhead_ms of `start` on `points`.
Efficiency fit_efficiency(const std::vector<CalibrationPoint>& points, const Efficiency& start);

struct CalibrationRow {
  CalibrationPoint point;
  double modelled = 0;       ///< with the generation's stored set (efficiency_for)
  double error_frac = 0;     ///< modelled / published − 1
  double loo_modelled = 0;   ///< with a set fitted without this point
  double loo_error_frac = 0;
};

/// Every calibration point with the stored set's error and its leave-one-out error.
std::vector<CalibrationRow> calibration_table();

} // namespace dcsim::serving
