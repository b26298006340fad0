#include "tools/benchmarks/step_bench.hpp"

#include "models/workload/step_model.hpp"
#include "models/world.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

#include <sys/resource.h>

namespace dcsim::tools {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
double cpu_s() { // user + sys of this process and its waited-for children
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage ru{};
    getrusage(who, &ru);
    s += static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  }
  return s;
}

constexpr int REPETITIONS = 10000;
constexpr int TP = 8;
constexpr int PP = 16;
constexpr int MICRO_BATCHES = 16;
constexpr int USABLE_PER_RACK = 64;
constexpr int GPUS_PER_RACK = 72;
constexpr int TWO_TIER_GPUS_PER_PLANE = 512 * 512 / 2;

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
  m.precision = hardware::Precision::FP8;
  m.micro_batch = 1;
  m.global_batch = static_cast<long long>(dp) * MICRO_BATCHES;
  job.parallelism.tp = TP;
  job.parallelism.pp = PP;
  job.parallelism.dp = dp;
  return job;
}

/// The racks and fabric for `gpus` GPUs; the job in it is a placeholder (the bench builds the model).
Scenario factory(int gpus) {
  const int racks = gpus / USABLE_PER_RACK;
  const int tiers = racks * GPUS_PER_RACK <= TWO_TIER_GPUS_PER_PLANE ? 2 : 3;
  const auto loaded = load_scenario_text(fmt::format(R"({{
    "name": "step-bench", "replicas": 1, "duration_h": 1,
    "hardware": {{ "gpu": {{ "model": "rubin" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": {} }},
    "fabric": {{ "kind": "roce", "planes": 8, "port_gbps": 200, "tiers": {}, "switch_radix": 512 }},
    "jobs": [ {{ "name": "j", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e15 }} ]
  }})",
                                                     racks, tiers, gpus),
                                         "step-bench.json");
  if (!loaded.scenario) throw std::runtime_error(loaded.errors);
  return *loaded.scenario;
}

StepBenchRow measure(int gpus) {
  StepBenchRow row;
  row.gpus = gpus;
  row.dp = gpus / (TP * PP);
  const Scenario s = factory(gpus);
  auto start = Clock::now();
  World world(s);
  row.build_s = seconds_since(start);

  const workload::ModelJobSpec job = llama405b(row.dp);
  fabric::FabricCommModel comm(*world.fabric(), fabric::alpha_beta_params(s.hardware, scale_out_gbps(s)),
                               s.hardware.gpu.nic_efficiency_frac, [gpus] {
                                 std::vector<int> ranks; // the usable GPUs of consecutive racks
                                 for (int g = 0; g < gpus; ++g)
                                   ranks.push_back(g / USABLE_PER_RACK * GPUS_PER_RACK + g % USABLE_PER_RACK);
                                 return ranks;
                               });
  workload::StepModel model(job, s.hardware, comm);
  comm.expect(model.groups());
  start = Clock::now();
  const double cpu_start = cpu_s();
  const workload::StepBreakdown first = model.evaluate();
  row.first_evaluation_s = seconds_since(start);
  row.first_evaluation_cpu_s = cpu_s() - cpu_start;
  row.flows = static_cast<double>(comm.flows_played());
  row.step_time_s = first.step_time_s;
  row.mfu_frac = first.mfu_frac;
  row.alpha_beta_step_s = workload::healthy_step(job, s.hardware, scale_out_gbps(s)).step_time_s;
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  row.rss_mib = static_cast<double>(self.ru_maxrss) / 1024.0;

  double sink = 0;
  start = Clock::now();
  for (int i = 0; i < REPETITIONS; ++i)
    sink += model.evaluate().step_time_s;
  row.cached_evaluation_s = seconds_since(start) / REPETITIONS;
  if (sink < 0) row.step_time_s = sink; // keeps the loop from being optimised away
  return row;
}

} // namespace

std::vector<StepBenchRow> bench_step_model() {
  std::vector<StepBenchRow> rows;
  for (int gpus : {4096, 16384, 65536, 131072}) { // each in its own process: one SimGrid engine per process
    const std::string reply = sim::run_in_child([gpus] {
      const StepBenchRow row = measure(gpus);
      std::string out(sizeof row, '\0');
      std::memcpy(out.data(), &row, sizeof row);
      return out;
    });
    StepBenchRow row;
    if (reply.size() != sizeof row) throw std::logic_error("step bench: malformed reply");
    std::memcpy(&row, reply.data(), sizeof row);
    rows.push_back(row);
  }
  return rows;
}

} // namespace dcsim::tools
