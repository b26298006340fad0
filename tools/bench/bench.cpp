// dcsim-bench: performance benchmarks. For now: the step-time model (tools/bench/step_bench.hpp).
#include "tools/bench/step_bench.hpp"

#include <fmt/format.h>

int main() {
  fmt::print("step-time model: one evaluation of a 405B-class dense job (TP8 x PP16 x DP) on Rubin NVL72\n");
  fmt::print("{:>8} {:>6} {:>16} {:>16} {:>16} {:>12} {:>8}\n", "gpus", "dp", "first_eval_us", "eval_us",
             "cached_eval_us", "step_time_s", "mfu");
  for (const auto& r : dcsim::tools::bench_step_model())
    fmt::print("{:>8} {:>6} {:>16.2f} {:>16.3f} {:>16.3f} {:>12.4f} {:>8.3f}\n", r.gpus, r.dp,
               r.first_evaluation_s * 1e6, r.evaluation_s * 1e6, r.cached_evaluation_s * 1e6, r.step_time_s,
               r.mfu_frac);
  return 0;
}
