#include "models/serving/efficiency.hpp"

namespace dcsim::serving {

namespace {
constexpr const char* EPOCH = "TensorRT-LLM PyTorch backend, perf overview at 03e27c7d (2025-H2)";
} // namespace

std::string generation_of(std::string_view gpu) {
  if (gpu.rfind("h100", 0) == 0 || gpu.rfind("h200", 0) == 0) return "hopper";
  return "blackwell";
}

Efficiency fixed_efficiency(std::string_view generation) {
  Efficiency e;
  e.generation = std::string(generation);
  e.epoch = EPOCH;
  if (generation == "hopper") {
    e.hbm_frac = 0.80;
    e.gemm_frac = 0.803 * 0.55 / 0.729;
  } else {
    e.hbm_frac = 0.92;
    e.gemm_frac = 0.55;
  }
  return e;
}

Efficiency efficiency_for(std::string_view gpu) {
  const std::string gen = generation_of(gpu);
  Efficiency e = fixed_efficiency(gen);
  // FITTED by fit_efficiency on the generation's calibration points (tests/unit/serving/calibration_test.cpp
  // re-runs the fit and checks these values are its optimum).
  if (gen == "hopper") {
    e.gemm_frac = 0.1977;
    e.kv_read_frac = 0.3609;
    e.layer_overhead_us = 0.0;
    e.step_overhead_ms = 13.73;
  } else {
    e.gemm_frac = 0.2152;
    e.kv_read_frac = 0.3618;
    e.layer_overhead_us = 100.3;
    e.step_overhead_ms = 0.503;
  }
  return e;
}

} // namespace dcsim::serving
