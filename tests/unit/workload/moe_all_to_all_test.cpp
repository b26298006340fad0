// MoE expert parallelism spanning NVLink domains: the all-to-all crosses the fabric, and the busiest
// expert's share (load imbalance) stretches its bandwidth term by f (step_model.hpp).
#include "models/hardware/spec.hpp"
#include "models/fabric/comm_model.hpp"
#include "models/workload/memory_footprint.hpp"
#include "models/workload/step_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace dcsim;
using namespace dcsim::workload;

namespace {

hardware::HardwareSpec hgx_a100() {
  sim::Problems problems;
  const auto json = sim::Json::parse(
      R"({"gpu": {"model": "a100-80g"}, "rack": {"kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 1}})");
  const sim::Node node(json, "/hardware", hardware::hardware_keys(), problems);
  hardware::HardwareSpec hw = hardware::decode_hardware(node);
  REQUIRE(problems.empty());
  return hw;
}

/// 16 GPUs on two 8-GPU servers: tp 2 × ep 8 = 16, so each expert-parallel group spans both servers.
ModelJobSpec moe_job(double hot_share) {
  ModelJobSpec j;
  TransformerSpec& m = j.model;
  m.layers = 4;
  m.hidden = 1024;
  m.ffn_hidden = 4096;
  m.heads = m.kv_heads = 16;
  m.seq_len = 1024;
  m.vocab = 32000;
  m.global_batch = 32;
  m.micro_batch = 1;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn_hidden = 4096;
  m.hot_expert_share_frac = hot_share;
  ParallelismSpec& p = j.parallelism;
  p.tp = 2;
  p.dp = 8;
  p.ep = 8;
  return j;
}

} // namespace

TEST_CASE("unit: workload: the imbalance factor is 1 when balanced and ep when one rank gets every token") {
  CHECK(expert_imbalance_factor(8, 4, 1.0 / 8) == 1.0); // exactly: a balanced job's step is unchanged
  CHECK(expert_imbalance_factor(8, 1, 0.9) == 1.0);     // no expert parallelism: no all-to-all
  // E = 8 over ep = 4 (2 experts per rank), s = 0.5: the busiest rank holds 0.5 + 0.5/7 of the tokens,
  // 4 × (0.5 + 1/14) = 2.2857 times the mean 1/4.
  CHECK(expert_imbalance_factor(8, 4, 0.5) == Approx(4 * (0.5 + 0.5 / 7)).epsilon(1e-12));
  CHECK(expert_imbalance_factor(8, 4, 1.0) == Approx(4.0).epsilon(1e-12));
  CHECK(expert_imbalance_factor(64, 64, 2.0 / 64) == Approx(2.0).epsilon(1e-12)); // one expert per rank: ep·s
}

TEST_CASE("unit: workload: an expert all-to-all spanning two servers costs its closed form over the NICs, "
          "stretched by the busiest expert's share") {
  const hardware::HardwareSpec hw = hgx_a100();
  const AlphaBetaCommModel comm(alpha_beta_params(hw));
  const auto& params = comm.params();
  // The EP group: n = 8 ranks at stride tp = 2, k = 4 per 8-GPU server, so D = 2 servers. Per rank and
  // all-to-all, S = f · T · top_k · h · 2 B / tp (sequence parallelism) with T = 1024 tokens:
  //   a2a = (n − 1) α_net + max((k − 1)/n · S / B_nvl, (n − k)/n · S / B_net)
  // ep_s = micro-batches (32 / 8 = 4) × layers (4) × 4 all-to-alls per layer (dispatch and combine,
  // forward and backward) × a2a.
  auto closed_form = [&](double f) {
    const double n = 8, k = 4;
    const double s = f * 1024.0 * 2 * 1024 * ACTIVATION_BYTES / 2;
    const double a2a = (n - 1) * params.scale_out_latency_s +
                       std::max((k - 1) / n * s / params.nvlink_bytes_per_s, (n - k) / n * s / params.scale_out_bytes_per_s);
    return 4.0 * 4 * 4 * a2a;
  };
  const StepModel balanced(moe_job(1.0 / 8), hw, comm);
  const CommGroup ep = balanced.group(GroupAxis::EP);
  CHECK(ep.ranks == 8);
  CHECK(ep.ranks_per_domain == 4); // the group crosses the fabric
  const StepBreakdown b = balanced.compute();
  CHECK(b.ep_s == Approx(closed_form(1.0)).epsilon(1e-12));
  // One expert per rank (E = ep = 8): the hottest expert at s = 0.25 makes its rank 8 × 0.25 = 2 times
  // the mean; its bandwidth term doubles, its latency does not.
  const StepBreakdown hot = StepModel(moe_job(0.25), hw, comm).compute();
  CHECK(hot.ep_s == Approx(closed_form(2.0)).epsilon(1e-12));
  CHECK(hot.step_time_s - b.step_time_s == Approx(hot.ep_s - b.ep_s).epsilon(1e-9)); // nothing else moved
}
