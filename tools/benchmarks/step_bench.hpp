// Benchmark of the step-time model: the cost of evaluating one step of a 405B-class dense job
// (Llama-3-405B shape: 126 layers, h 16384, SwiGLU ffn 53248, 128 heads / 8 KV heads, seq 8192, vocab
// 128256; TP8 × PP16 × DP, 16 micro-batches of one sequence per pipeline) on Vera Rubin NVL72 racks,
// at 4,096, 16,384, 65,536 and 131,072 GPUs. Issue 4 asks for ≤ 1 s at 16,384 GPUs and ≤ 10 s at
// 131,072; the alpha-beta model is closed-form, so the time does not grow with the GPUs.
#pragma once

#include <vector>

namespace dcsim::tools {

struct StepBenchRow {
  int gpus = 0;
  int dp = 0;
  double first_evaluation_s = 0;  ///< wall time of constructing the model and the first (uncached) evaluation
  double evaluation_s = 0;        ///< mean wall time of one uncached evaluation (many repetitions)
  double cached_evaluation_s = 0; ///< mean wall time of a cached evaluate()
  double step_time_s = 0;         ///< the simulated step
  double mfu_frac = 0;
};

std::vector<StepBenchRow> bench_step_model();

} // namespace dcsim::tools
