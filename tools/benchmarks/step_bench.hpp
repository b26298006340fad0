// Benchmark of the step-time model with its cross-rack collectives played on the SimGrid fabric: one
// healthy step of a 405B-class dense job (Llama-3-405B shape: 126 layers, h 16384, SwiGLU ffn 53248,
// 128 heads / 8 KV heads, seq 8192, vocab 128256; TP8 × PP16 × DP, 16 micro-batches of one sequence per
// pipeline, fp8) on Vera Rubin NVL72 racks of 64 usable GPUs and an 8-plane RoCE fabric of 200G ports,
// radix 512 (two tiers up to 131,072 GPUs per plane, three beyond), at 4,096, 16,384, 65,536 and 131,072
// GPUs. Issue 27 asks for ≤ 0.1 s at 16,384 GPUs and ≤ 1 s at 131,072 for the first evaluation (issue 4
// asked for 1 s and 10 s). The first evaluation prices the job's DP rings and pipeline sends
// (FabricCommModel: every group's flows, max-min over the fabric's links, in this process); the
// platform's build is reported apart, as `dcsim run` pays it once for all evaluations. Wall times on a
// shared machine are noisy: the CPU time (user + sys) of the first evaluation is reported beside it.
#pragma once

#include <vector>

namespace dcsim::tools {

struct StepBenchRow {
  int gpus = 0;
  int dp = 0;
  double build_s = 0;             ///< building the World (racks, fabric graph, SimGrid platform)
  double first_evaluation_s = 0;  ///< the first evaluation: the probes on the fabric
  double first_evaluation_cpu_s = 0; ///< its CPU time, user + sys (this process and any child)
  double flows = 0;               ///< SimGrid flows the probes played
  double cached_evaluation_s = 0; ///< mean wall time of a cached evaluate()
  double step_time_s = 0;         ///< the simulated step, collectives played on the fabric
  double alpha_beta_step_s = 0;   ///< the same step with the alpha-beta network
  double mfu_frac = 0;
  double rss_mib = 0;             ///< peak RSS of the measuring process (build and evaluation)
};

std::vector<StepBenchRow> bench_step_model();

} // namespace dcsim::tools
