// Prefill/decode disaggregation (models/serving/disaggregation.hpp): the pool split, the capacity as the
// smaller pool's, the KV hand-off t_h = S_kv/(N·b), and the fluid mode of a disaggregated service.
#include "models/serving/disaggregation.hpp"
#include "models/serving/service_timeline.hpp"
#include "sim/json_reader.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::serving;

namespace {
hardware::HardwareSpec h100() {
  sim::Problems problems;
  const sim::Json doc = sim::Json::parse(
      R"({"gpu": {"model": "h100-sxm"}, "rack": {"kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 4}})");
  const sim::Node node(doc, "/hardware", hardware::hardware_keys(), problems);
  hardware::HardwareSpec hw = hardware::decode_hardware(node);
  REQUIRE(problems.empty());
  return hw;
}

PerfModel llama_tp8(const hardware::HardwareSpec& hw) {
  return PerfModel(*find_model_shape("llama3-70b"),
                   InstanceConfig{8, 1, 1, false, hardware::Precision::FP8, 1.0}, gpu_figures(hw),
                   efficiency_for(hw.gpu.model));
}
} // namespace

TEST_CASE("disaggregation splits the pool by its ratio, one instance of each at least", "[serving]") {
  // n_p = min(n − 1, max(1, round(n·r/(1+r)))).
  CHECK(split_pool(10, 1).prefill == 5);
  CHECK(split_pool(10, 1).decode == 5);
  CHECK(split_pool(10, 0.25).prefill == 2); // 10·0.2 = 2
  CHECK(split_pool(9, 0.5).prefill == 3);   // 9/3 = 3
  CHECK(split_pool(7, 1).prefill == 4);     // 3.5 rounds away from zero
  CHECK(split_pool(10, 0.01).prefill == 1); // 0.099 → 0, at least one
  CHECK(split_pool(10, 100).prefill == 9);  // 9.9 → 10, leaves one decode
  CHECK(split_pool(1, 1).prefill == 0);     // no pair: nothing
  CHECK(split_pool(1, 1).decode == 0);
}

TEST_CASE("a disaggregated pool's capacity is the smaller pool's", "[serving]") {
  DisaggregatedFigures f;
  f.prefill_req_per_s = 2;  // C_p
  f.decode_req_per_s = 0.5; // C_d
  DisaggregationSpec spec;
  spec.prefill_per_decode = 1; // 5 + 5: min(5·2, 5·0.5) = 2.5, the decode pool binds
  CHECK(disaggregated_capacity_req_per_s(f, spec, 10) == Approx(2.5));
  spec.prefill_per_decode = 0.25; // 2 + 8: min(4, 4) = 4, balanced
  CHECK(disaggregated_capacity_req_per_s(f, spec, 10) == Approx(4));
  spec.prefill_per_decode = 0.01; // 1 + 9: min(2, 4.5) = 2, the prefill pool binds
  CHECK(disaggregated_capacity_req_per_s(f, spec, 10) == Approx(2));
  CHECK(disaggregated_capacity_req_per_s(f, spec, 1) == 0);
}

TEST_CASE("disaggregated figures are the prefill rate and the decode-only SLO batch", "[serving]") {
  const auto hw = h100();
  const PerfModel m = llama_tp8(hw);
  DisaggregationSpec spec;
  spec.handoff = KvHandoff::FREE;
  const DisaggregatedFigures f = disaggregated_figures(m, 1000, 200, 0.05, spec);
  REQUIRE(f.problem.empty());
  // C_p = 1/(ISL·c_pf); C_d = B_d/(t_dec(B_d)·OSL), B_d the grid's largest batch with t_dec ≤ SLO.
  CHECK(f.prefill_req_per_s == Approx(1.0 / (1000 * m.prefill_s_per_token(1000))));
  CHECK(f.prefill_s == Approx(m.prefill_s(1000)));
  REQUIRE(f.decode_batch > 0);
  CHECK(f.decode_step_s <= 0.05);
  CHECK(f.decode_step_s == Approx(m.decode_step(f.decode_batch, 1100).total_s()));
  CHECK(f.decode_req_per_s == Approx(f.decode_batch / (f.decode_step_s * 200)));
  const int next = std::max(f.decode_batch + 1, static_cast<int>(f.decode_batch * 1.05));
  REQUIRE(next <= m.max_batch(1000, 200)); // the SLO, not the KV, bounds B_d here
  CHECK(m.decode_step(next, 1100).total_s() > 0.05);
  // No prefill interference: the decode-only batch beats the aggregated SLO batch's TPOT at equal batch.
  CHECK(f.decode_step_s < m.point(f.decode_batch, 1000, 200).tpot_s);
  // A hand-off adds t_h/(OSL − 1) to each later token: B_d is the largest batch within the SLO with it.
  spec.handoff = KvHandoff::FABRIC;
  const DisaggregatedFigures g = disaggregated_figures(m, 1000, 200, 0.05, spec);
  REQUIRE(g.handoff_s > 0);
  CHECK(g.handoff_tpot_s == Approx(g.handoff_s / 199));
  CHECK(g.decode_step_s + g.handoff_tpot_s <= 0.05);
  const int after = std::max(g.decode_batch + 1, static_cast<int>(g.decode_batch * 1.05));
  CHECK(m.decode_step(after, 1100).total_s() + g.handoff_tpot_s > 0.05);
  CHECK(g.decode_batch <= f.decode_batch);
}

TEST_CASE("the KV hand-off takes S_kv/(N·b)", "[serving]") {
  const auto hw = h100();
  const PerfModel m = llama_tp8(hw);
  // Llama-3 70B, fp8 KV: 2·80 layers·8 KV heads·128·1 B = 163,840 B per token; 1000 tokens = 163.84 MB
  // over N = 8 sending GPUs (one KV head each).
  const double s_kv = 163840.0 * 1000;
  const GpuFigures g = gpu_figures(hw);
  REQUIRE(g.nvlink_gb_per_s > 0);
  REQUIRE(g.nic_gb_per_s > 0);
  CHECK(kv_handoff_s(m, 1000, g.nvlink_gb_per_s) == Approx(s_kv / (8 * g.nvlink_gb_per_s * 1e9)));
  DisaggregationSpec spec;
  spec.handoff = KvHandoff::FABRIC;
  CHECK(disaggregated_figures(m, 1000, 200, 0.05, spec).handoff_s ==
        Approx(s_kv / (8 * g.nic_gb_per_s * 1e9)));
  spec.handoff = KvHandoff::NVLINK;
  CHECK(disaggregated_figures(m, 1000, 200, 0.05, spec).handoff_s ==
        Approx(s_kv / (8 * g.nvlink_gb_per_s * 1e9)));
  spec.handoff = KvHandoff::FREE;
  CHECK(disaggregated_figures(m, 1000, 200, 0.05, spec).handoff_s == 0);
}

TEST_CASE("the KV hand-off of an attention-DP instance leaves from one GPU per stage", "[serving]") {
  // DeepSeek-R1 DEP8 fp4 on GB200, fp8 KV: the MLA latent is 61 layers·(512 + 64)·1 B = 35,136 B per token,
  // a request's whole KV on the one GPU of its attention rank (N = pp = 1): t_h = 35,136·ISL / b.
  const GpuFigures g = find_gpu_figures("gb200", 72);
  const PerfModel m(*find_model_shape("deepseek-r1"),
                    InstanceConfig{8, 8, 1, true, hardware::Precision::FP4, 1.0}, g, efficiency_for("gb200"));
  REQUIRE(g.nvlink_gb_per_s > 0);
  CHECK(kv_handoff_s(m, 4096, g.nvlink_gb_per_s) == Approx(35136.0 * 4096 / (g.nvlink_gb_per_s * 1e9)));
}

namespace {
ServingSpec llama_service(DisaggregationSpec d) {
  ServingSpec s;
  s.model = "llama3-70b";
  s.isl = 1000;
  s.osl = 200;
  s.instance = InstanceConfig{8, 1, 1, false, hardware::Precision::FP8, 1.0};
  s.tpot_slo_s = 0.05;
  s.ttft_slo_s = 100;
  s.peak_window_load_frac = 1e9; // fluid only: no demand-peak window
  s.disaggregation = d;
  return s;
}

/// The smallest batch on the grid (batches 5% apart) at which `decoders` decode instances serve `rate`.
int covering_batch(const PerfModel& m, int decoders, double rate, int b_d) {
  for (double b = 1; b < b_d; b = std::max(b + 1, b * 1.05))
    if (decoders * static_cast<int>(b) / (m.decode_step(static_cast<int>(b), 1100).total_s() * 200) >= rate)
      return static_cast<int>(b);
  return b_d;
}
} // namespace

TEST_CASE("at low load with a free hand-off, a disaggregated service's TTFT is the prefill alone",
          "[serving]") {
  // λ = 0.01 requests/s on 8 instances (4 + 4): no batch forms, so TTFT = t_pf(ISL) on an idle prefill
  // instance and TPOT = t_dec(1); every request is served and meets the SLOs. Histogram: within 2.3%.
  const ServingSpec s = llama_service(DisaggregationSpec{1, KvHandoff::FREE});
  const auto hw = h100();
  const PerfModel m = llama_tp8(hw);
  ServiceTimeline t(s, hw, 1);
  t.advance(3600, 8, 0.01);
  const ServingTotals a = t.totals();
  CHECK(a.requests_served == Approx(36));
  CHECK(a.requests_met == Approx(36));
  CHECK(a.windows == 0);
  CHECK(a.ttft_p50_s == Approx(m.prefill_s(1000)).epsilon(0.025));
  CHECK(a.ttft_p99_s == Approx(m.prefill_s(1000)).epsilon(0.025));
  CHECK(a.tpot_p50_s == Approx(m.decode_step(1, 1100).total_s()).epsilon(0.025));
}

TEST_CASE("a disaggregated service's fluid mode serves the smaller pool's capacity", "[serving]") {
  const auto hw = h100();
  const PerfModel m = llama_tp8(hw);
  SECTION("the decode pool binds: it runs at B_d, each later token delayed by t_h/(OSL - 1)") {
    const ServingSpec s = llama_service(DisaggregationSpec{3, KvHandoff::FABRIC}); // 8 instances: 6 + 2
    const DisaggregatedFigures f = disaggregated_figures(m, 1000, 200, 0.05, *s.disaggregation);
    REQUIRE(f.handoff_s > 0);
    REQUIRE(2 * f.decode_req_per_s < 6 * f.prefill_req_per_s);
    const double cap = 2 * f.decode_req_per_s;
    ServiceTimeline t(s, hw, 1);
    CHECK(t.capacity_req_per_s(8) == Approx(cap));
    t.advance(3600, 8, 3 * cap); // overloaded: serves the capacity, sheds the rest
    const ServingTotals a = t.totals();
    CHECK(a.requests_served == Approx(cap * 3600));
    CHECK(a.ttft_p50_s == Approx(m.prefill_s(1000)).epsilon(0.025));
    CHECK(a.tpot_p50_s == Approx(f.decode_step_s + f.handoff_s / 199).epsilon(0.025));
  }
  SECTION("the prefill pool binds: the decoders run at the batch that serves the prefill pool's rate") {
    const ServingSpec s = llama_service(DisaggregationSpec{0.1, KvHandoff::FREE}); // 8 instances: 1 + 7
    const DisaggregatedFigures f = disaggregated_figures(m, 1000, 200, 0.05, *s.disaggregation);
    REQUIRE(f.prefill_req_per_s < 7 * f.decode_req_per_s);
    const double cap = f.prefill_req_per_s;
    ServiceTimeline t(s, hw, 1);
    CHECK(t.capacity_req_per_s(8) == Approx(cap));
    t.advance(3600, 8, 3 * cap);
    const ServingTotals a = t.totals();
    CHECK(a.requests_served == Approx(cap * 3600));
    const int b = covering_batch(m, 7, cap, f.decode_batch);
    REQUIRE(b < f.decode_batch);
    CHECK(a.tpot_p50_s == Approx(m.decode_step(b, 1100).total_s()).epsilon(0.025));
  }
}

TEST_CASE("a failure window of a disaggregated service strikes a pool in steady state", "[serving]") {
  // 8 instances at r = 0.1 (1 prefill + 7 decode, free hand-off) at 90% of their capacity C_p. A failure
  // opens a window of the whole pool (k = 8: λ·(600 s + warm-up) is below the 10,000-request cap), split
  // 1 + 7, so the struck instance is a decode one (the prefill pool keeps its only instance). The play
  // warms up for one request's lifetime first, so the struck instance holds requests in flight when it
  // fails (from an empty pool it would hold none): they lose their KV and are retried. The requests are
  // conserved: served in the fluid part before and after, or played in the window.
  const auto hw = h100();
  ServingSpec s = llama_service(DisaggregationSpec{0.1, KvHandoff::FREE});
  ServiceTimeline t(s, hw, 7);
  const double lambda = 0.9 * t.capacity_req_per_s(8);
  t.advance(100, 8, lambda);
  t.on_failure(8, lambda, 1);
  REQUIRE(t.window_open());
  const double left = t.window_left_s();
  t.advance(left, 7, lambda);
  t.close_window();
  t.advance(100, 8, lambda);
  const ServingTotals a = t.totals();
  CHECK(a.windows == 1);
  CHECK(a.retried_requests > 0);
  CHECK(a.requests_served == Approx(lambda * (200 + left)).epsilon(0.02));
}
