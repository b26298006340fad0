// Request-level play against queueing closed forms (M/D/1, Erlang C), disaggregation at low load, the
// fluid mode, and failures.
#include "models/serving/queueing.hpp"
#include "models/serving/request_play.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::serving;

namespace {
/// One request at a time, a fixed decode step and no prefill cost: service = (osl − 1) · step.
IterationCost single_server(double step_s) {
  IterationCost c;
  c.prefill_s_per_token = 0;
  c.decode_step_s = [step_s](int) { return step_s; };
  c.max_batch = 1;
  c.chunk_tokens = 8192;
  return c;
}
} // namespace

TEST_CASE("one server with Poisson arrivals and a fixed service time matches M/D/1", "[serving]") {
  // Service 101 tokens → 100 steps of 10 ms = 1 s; λ = 0.7/s: W_q = ρ/(2μ(1−ρ)) = 0.7/(2·0.3) = 1.1667 s.
  // TTFT is the wait (the prefill is free). 200,000 requests: the mean's standard error is ~1%.
  PlaySpec s;
  s.arrival_req_per_s = 0.7;
  s.requests = 200000;
  s.isl = 100;
  s.osl = 101;
  const PlayResult r = play_requests(s, single_server(0.01), single_server(0.01));
  CHECK(r.completed == s.requests);
  CHECK(md1_mean_wait_s(0.7, 1.0) == Approx(0.7 / 0.6));
  CHECK(r.ttft_mean_s == Approx(md1_mean_wait_s(0.7, 1.0)).epsilon(0.04));
  CHECK(r.tpot_p99_s == Approx(0.01));
}

TEST_CASE("four servers with near-exponential service match Erlang C", "[serving]") {
  // Output lengths 1 + Geometric(mean 999) at 1 ms a step: service ≈ exponential with mean 0.999 s
  // (CV² = 1 + 1/999). c = 4, λ = 3/s, μ = 1/0.999: Erlang C gives W_q = P_wait / (cμ − λ).
  PlaySpec s;
  s.arrival_req_per_s = 3.0;
  s.requests = 150000;
  s.isl = 10;
  s.osl = 1000;
  s.geometric_osl = true;
  s.instances = 4;
  const PlayResult r = play_requests(s, single_server(0.001), single_server(0.001));
  const double mu = 1.0 / 0.999;
  const double wq = mmc_mean_wait_s(4, 3.0, mu);
  CHECK(wq == Approx(0.509 * 0.999).epsilon(0.01)); // P_wait(4, a = 3) = 0.5094 (Erlang C table)
  CHECK(r.ttft_mean_s == Approx(wq).epsilon(0.05));
}

TEST_CASE("disaggregation with a free KV hand-off at low load gives the TTFT of prefill alone", "[serving]") {
  // Prefill of 4,000 tokens at 50 µs each = 0.2 s; arrivals every ~100 s: no queueing, so TTFT = 0.2 s
  // for every request, and TPOT is the decode pool's step at batch 1.
  IterationCost prefill = single_server(0.02);
  prefill.prefill_s_per_token = 50e-6;
  IterationCost decode = single_server(0.02);
  decode.max_batch = 64;
  PlaySpec s;
  s.arrival_req_per_s = 0.01;
  s.requests = 200;
  s.isl = 4000;
  s.osl = 50;
  s.disaggregated = true;
  const PlayResult r = play_requests(s, decode, prefill);
  CHECK(r.completed == 200);
  CHECK(r.ttft_p50_s == Approx(0.2));
  CHECK(r.ttft_p99_s == Approx(0.2));
  CHECK(r.tpot_p99_s == Approx(0.02));
  // A hand-off of 10 µs per token delays the second token by 40 ms: the mean TPOT grows by 40 ms / 49
  // (up to one step more when the decode instance is mid-iteration with another request: 0.1%).
  s.kv_transfer_s_per_token = 10e-6;
  const PlayResult slow = play_requests(s, decode, prefill);
  CHECK(slow.ttft_p50_s == Approx(0.2));
  CHECK(slow.tpot_mean_s == Approx(0.02 + 0.04 / 49).epsilon(1e-3));
}

TEST_CASE("the fluid mode and the request-level play agree on throughput and TPOT", "[serving]") {
  // Llama-3 70B TP8 fp8 on H100, 1000/200 requests at 80% of the pool's capacity at a 50 ms TPOT SLO:
  // the fluid mode's served rate equals λ and the play's throughput matches it within 3%; the play's
  // median TPOT stays within the SLO.
  const PerfModel model(*find_model_shape("llama3-70b"), InstanceConfig{8, 1, 1, false, hardware::Precision::FP8, 1.0},
                        find_gpu_figures("h100-sxm", 8), efficiency_for("h100-sxm"));
  const OperatingCurve curve = model.curve(1000, 200);
  const double slo = 0.05;
  const FluidState cap = fluid_state(curve, 2, 1e9, slo);
  REQUIRE(cap.capacity_req_per_s > 0);
  const double lambda = 0.8 * cap.capacity_req_per_s;
  const FluidState f = fluid_state(curve, 2, lambda, slo);
  CHECK(f.meets_slo);
  CHECK(f.served_req_per_s == Approx(lambda));
  PlaySpec s;
  s.arrival_req_per_s = lambda;
  s.requests = 20000;
  s.isl = 1000;
  s.osl = 200;
  s.instances = 2;
  s.tpot_slo_s = slo;
  const IterationCost c = iteration_cost(model, 1000, 200);
  const PlayResult r = play_requests(s, c, c);
  CHECK(r.throughput_req_per_s == Approx(lambda).epsilon(0.03));
  CHECK(r.tpot_p50_s <= slo);
  CHECK(r.tpot_p50_s <= f.tpot_s * 1.25);
}

TEST_CASE("a failed instance's requests lose their KV and are retried", "[serving]") {
  PlaySpec s;
  s.arrival_req_per_s = 5;
  s.requests = 2000;
  s.isl = 100;
  s.osl = 100;
  s.instances = 2;
  s.fail_instance_at_s = 50;
  s.repair_s = 30;
  IterationCost c = single_server(0.01);
  c.max_batch = 16;
  const PlayResult r = play_requests(s, c, c);
  CHECK(r.completed == 2000); // every request finishes, the retried ones too
  CHECK(r.retried > 0);
  CHECK(r.retried <= 16);     // at most the failed instance's batch
  PlaySpec healthy = s;
  healthy.fail_instance_at_s = -1;
  CHECK(r.ttft_p99_s > play_requests(healthy, c, c).ttft_p99_s);
}
