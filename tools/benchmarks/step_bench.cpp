#include "tools/benchmarks/step_bench.hpp"

#include "models/workload/step_model.hpp"

#include <chrono>

namespace dcsim::tools {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr int REPETITIONS = 10000;
constexpr int TP = 8;
constexpr int PP = 16;
constexpr int MICRO_BATCHES = 16;

hardware::HardwareSpec rubin_nvl72() {
  sim::Problems problems;
  const sim::Json json = sim::Json::parse(R"({"gpu": {"model": "rubin"}, "rack": {"kind": "nvl72"}})");
  return hardware::decode_hardware(sim::Node(json, "/hardware", hardware::hardware_keys(), problems));
}

workload::ModelJobSpec llama405b(int dp) {
  workload::ModelJobSpec job;
  workload::TransformerSpec& m = job.model;
  m.layers = 126;
  m.hidden = 16384;
  m.ffn_hidden = 53248;
  m.heads = 128;
  m.kv_heads = 8;
  m.seq_len = 8192;
  m.vocab = 128256;
  m.mlp = workload::Mlp::SWIGLU;
  m.tied_embeddings = false;
  m.micro_batch = 1;
  m.global_batch = static_cast<long long>(dp) * MICRO_BATCHES;
  job.parallelism.tp = TP;
  job.parallelism.pp = PP;
  job.parallelism.dp = dp;
  return job;
}

} // namespace

std::vector<StepBenchRow> bench_step_model() {
  const hardware::HardwareSpec hw = rubin_nvl72();
  workload::AlphaBetaCommModel comm(workload::alpha_beta_params(hw));
  std::vector<StepBenchRow> rows;
  for (int gpus : {4096, 16384, 65536, 131072}) {
    StepBenchRow row;
    row.gpus = gpus;
    row.dp = gpus / (TP * PP);
    auto start = Clock::now();
    workload::StepModel model(llama405b(row.dp), hw, comm);
    const workload::StepBreakdown first = model.evaluate();
    row.first_evaluation_s = seconds_since(start);
    row.step_time_s = first.step_time_s;
    row.mfu_frac = first.mfu_frac;

    double sink = 0;
    start = Clock::now();
    for (int i = 0; i < REPETITIONS; ++i)
      sink += model.compute(1.0 - 1e-9 * i).step_time_s;
    row.evaluation_s = seconds_since(start) / REPETITIONS;
    start = Clock::now();
    for (int i = 0; i < REPETITIONS; ++i)
      sink += model.evaluate().step_time_s;
    row.cached_evaluation_s = seconds_since(start) / REPETITIONS;
    if (sink < 0) row.step_time_s = sink; // keeps the loops from being optimised away
    rows.push_back(row);
  }
  return rows;
}

} // namespace dcsim::tools
