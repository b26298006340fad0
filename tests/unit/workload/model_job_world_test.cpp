// A job described by a model: the World derives its step from the model, the parallelism and the
// hardware, and the run's metrics use it (mfu_frac against the precision's peak, tokens_per_s). The
// expected step is worked out by hand below from the formulas of step_model.hpp, comm_model.hpp and
// transformer_flops.hpp, with every hardware figure set in the scenario (no catalogue value is read), so
// that a wrong wiring in World (another bandwidth, group, byte count or parameter count) shows.
#include "models/ledger/replica_result.hpp"
#include "models/world.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>

using namespace dcsim;

namespace {

// One HGX rack of 2 servers x 8 GPUs (NVLink domains of 8); one 16-GPU bf16 job, pure data parallelism
// (tp = pp = cp = 1, dp = 16), ZeRO 0, gradient all-reduce not overlapped (all exposed); no failures.
// Model: L = 2, h = 1024, a = a_kv = 8 (h_kv = h), f = 4096 (4h, GELU: n = 2), s = 1024, V = 32768 tied,
// global batch B = 32 sequences, micro-batch 1, FlashAttention, no recomputation.
std::string scenario_json(double nic_gbps) {
  return fmt::format(R"({{
    "replicas": 1, "duration_h": 1,
    "hardware": {{
      "gpu": {{ "model": "h100-sxm", "peak_tflops": 1000, "compute_efficiency_frac": 0.5,
               "hbm_tb_per_s": 4, "hbm_efficiency_frac": 0.5,
               "nic_gbps": {}, "nic_efficiency_frac": 0.5, "nic_latency_us": 20,
               "nvlink_efficiency_frac": 0.5, "nvlink_latency_us": 10 }},
      "rack": {{ "kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 2, "nvlink_gbps": 8000 }} }},
    "cluster": {{ "racks": 1 }},
    "jobs": [ {{ "name": "j", "gpus": 16,
      "model": {{ "layers": 2, "hidden": 1024, "heads": 8, "kv_heads": 8, "ffn_hidden": 4096, "mlp": "gelu",
                 "seq_len": 1024, "vocab": 32768, "tied_embeddings": true, "global_batch": 32, "micro_batch": 1,
                 "flash_attention": true, "recompute": "none", "precision": "bf16" }},
      "parallelism": {{ "tp": 1, "pp": 1, "zero": 0, "overlap_grad_reduce": false }} }} ]
  }})",
                     nic_gbps);
}

Scenario load(double nic_gbps) {
  const auto loaded = tools::load_scenario_text(scenario_json(nic_gbps), "t.json");
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  return *loaded.scenario;
}

// Hand derivation (units: s, bytes, FLOPs; h² = 2^20):
//   Rates: GEMMs P·η_c = 1000e12 × 0.5 = 5e14 FLOP/s; HBM 4e12 × 0.5 = 2e12 B/s;
//          NVLink 8000 Gb/s both ways → 4000 Gb/s = 500e9 B/s per direction × 0.5 = B_nvl = 250e9 B/s,
//          α_nvl = 10e-6; NIC 400 Gb/s = 50e9 B/s × 0.5 = B_net = 25e9 B/s, α_net = 20e-6.
//   Micro-batches m = B / (dp × 1) = 32 / 16 = 2; tokens per micro-batch T = 1 × 1024.
//   F_layer = 2(2h² + 2h·h_kv) + 4sh + 2·n·h·f = 8h² + 4h² + 16h² = 28·2^20 = 29,360,128 FLOPs/token.
//   gemm_s   = T·3F / 5e14 = 1024 × 3 × 29,360,128 / 5e14                         = 1.80388626432e-4
//   memory_s = κ·3·A / 2e12, A = T(10h + 4h + 4h_kv + 2n·f) = T·34h = 35,651,584 B
//            = 2 × 3 × 35,651,584 / 2e12                                          = 1.06954752e-4
//   logits_s = T·3·2hV / 5e14 = 1024 × 6 × 2^25 / 5e14                            = 4.12316860416e-4
//   stage_s  = 2 × (gemm_s + memory_s) + logits_s                                 = 9.8700361728e-4
//   compute_s = m × stage_s                                                       = 1.97400723456e-3
//   Parameters: per layer 12h² + 13h = 12,596,224 (attention 4h² + 8h, MLP 8h² + 5h); × 2 layers +
//   V·h = 33,554,432 (tied: once) → N = 58,746,880; gradient S = 2N = 117,493,760 B.
//   DP all-reduce over n = 16 ranks, k = 8 per NVLink domain, D = 2 domains (hierarchical ring):
//     2·[(k−1)α_nvl + (k−1)/k · S/B_nvl] = 2 × (7e-5 + 4.1122816e-4)                = 9.6245632e-4
//     2·[(D−1)α_net + (D−1)/D · (S/k)/B_net] = 2 × (2e-5 + 0.5 × 14,686,720 / 25e9) = 6.274688e-4
//     dp_s                                                                          = 1.58992512e-3
//   optimizer_s = 28 B × N / 2e12 (ZeRO 0: every parameter)                        = 8.2245632e-4
//   step = compute_s + dp_s + optimizer_s (no TP, PP, CP, EP, bubble)               = 4.38638867456e-3
//        → 4386 µs in the job's timing (rounded to the microsecond).
//   Model FLOPs per step = 3·B·s·(L·F_layer + 2hV) = 3 × 32768 × (56 + 64)·2^20     = 12,369,505,812,480
constexpr double STEP_S = 4.38638867456e-3;
constexpr double MODEL_FLOPS = 12'369'505'812'480.0;
constexpr double PEAK_FLOPS = 1000e12;
constexpr int GPUS = 16;
// Halving the NIC bandwidth (400 → 200 Gb/s) doubles the one term that crosses the network's β:
//   Δ = 2 × (D−1)/D × (S/k) / B_net = 2 × 0.5 × 14,686,720 / 25e9 = 5.874688e-4 s
//   step = 4.38638867456e-3 + 5.874688e-4 = 4.97385747456e-3 s → 4974 µs.
constexpr double NIC_HALVED_DELTA_S = 5.874688e-4;

} // namespace

TEST_CASE("unit: workload: a model job's step is its compute, exposed DP all-reduce and optimizer, derived by hand") {
  const Scenario scenario = load(400);
  World world(scenario);
  CHECK(world.job_timing().at(0).step == 4386); // µs: round(STEP_S × 1e6)
  CHECK(world.scenario().jobs.at(0).model_flops_per_step == Approx(MODEL_FLOPS).epsilon(1e-12));

  const ledger::ReplicaResult result = world.run_replica(0);
  REQUIRE(result.jobs.size() == 1);
  std::map<std::string, double> metrics;
  for (const auto& [name, value] : ledger::job_metrics(result.jobs[0], result.peak_flops_per_gpu))
    metrics[name] = value;
  // The metrics read the microsecond-rounded step: 4386 µs differs from STEP_S by 9e-5 of it.
  const double step = 4386e-6;
  CHECK(metrics.at("step_time_s") == Approx(step).epsilon(1e-12));
  CHECK(metrics.at("step_time_s") == Approx(STEP_S).epsilon(1e-4));
  // MFU = model FLOPs per step / (step × GPUs × bf16 peak) = 1.2369505812e13 / (4.386e-3 × 16 × 1e15)
  //     = 0.17626...
  CHECK(metrics.at("mfu_frac") == Approx(MODEL_FLOPS / (step * GPUS * PEAK_FLOPS)).epsilon(1e-9));
  CHECK(metrics.at("mfu_frac") == Approx(0.17626).epsilon(1e-4));
  // Tokens per step B·s = 32768.
  CHECK(metrics.at("tokens_per_s") == Approx(32768 / step).epsilon(1e-9));
}

TEST_CASE("unit: workload: halving the NIC bandwidth adds exactly the network beta term of the exposed DP all-reduce") {
  // Each World in its own child process (one SimGrid engine per process).
  const auto runs = test::simulate_all({load(400), load(200)});
  auto step_s = [](const ledger::ReplicaResult& r) {
    for (const auto& [name, value] : ledger::job_metrics(r.jobs.at(0), r.peak_flops_per_gpu))
      if (name == "step_time_s") return value;
    FAIL("no step_time_s");
    return 0.0;
  };
  const double a = step_s(runs[0].at(0)), b = step_s(runs[1].at(0));
  CHECK(a == Approx(4386e-6).epsilon(1e-12));
  CHECK(b == Approx(4974e-6).epsilon(1e-12)); // round((STEP_S + NIC_HALVED_DELTA_S) × 1e6) µs
  // Within the two microsecond roundings of the exact difference (587.4688 µs).
  CHECK(b - a == Approx(NIC_HALVED_DELTA_S).margin(1e-6));
}
