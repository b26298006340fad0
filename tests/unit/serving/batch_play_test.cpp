// The batch-level play (models/serving/batch_play.hpp) against the request-level play it steps in groups,
// and against closed forms.
#include "models/serving/batch_play.hpp"
#include "models/serving/queueing.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::serving;

namespace {
/// The decode step reads the model: it lives as long as the tests.
IterationCost llama_h100_cost() {
  static const PerfModel model(*find_model_shape("llama3-70b"), InstanceConfig{8, 1, 1, false, hardware::Precision::FP8, 1.0},
                        find_gpu_figures("h100-sxm", 8), efficiency_for("h100-sxm"));
  IterationCost c = iteration_cost(model, 1000, 200);
  c.max_batch = 64;
  return c;
}

PlaySpec loaded_pool(double arrival_req_per_s) {
  PlaySpec s;
  s.arrival_req_per_s = arrival_req_per_s;
  s.requests = 30000;
  s.isl = 1000;
  s.osl = 200;
  s.instances = 3;
  s.measure_from_s = 60;
  return s;
}
} // namespace

TEST_CASE("one server with Poisson arrivals and a fixed service time matches M/D/1 in batch steps", "[serving]") {
  // As the request-level test: 100 steps of 10 ms = 1 s of service, λ = 0.7/s, W_q = 7/6 s. One request at a
  // time, so every arrival during a service waits: the batch play places it at its expected position in the
  // interval it arrived in, which keeps the mean wait (the positions' mean is exact).
  PlaySpec s;
  s.arrival_req_per_s = 0.7;
  s.requests = 200000;
  s.isl = 100;
  s.osl = 101;
  IterationCost c;
  c.decode_step_s = [](int) { return 0.01; };
  c.max_batch = 1;
  const BatchPlayResult r = play_batches(s, c);
  CHECK(r.completed == s.requests);
  CHECK(r.ttft_mean_s() == Approx(md1_mean_wait_s(0.7, 1.0)).epsilon(0.04));
  CHECK(r.tpot_mean_s() == Approx(0.01));
}

TEST_CASE("the batch play and the request-level play agree on a loaded pool", "[serving]") {
  // Llama-3 70B TP8 fp8 on H100 (1000/200 tokens), 3 instances of at most 64 requests, at 60% and at 95% of
  // their capacity (queues form near saturation; measured: TTFT means 0.097/0.097 s and 0.219/0.185 s, p99
  // 0.207/0.206 s and 1.106/1.072 s, request-level/batch). Throughput within 2%, mean and p99 TPOT within 3% (the
  // iterations are the same); the TTFT differs by at most an iteration per request: the mean within 10%
  // plus one iteration, the p99 within 15% plus one iteration.
  const IterationCost c = llama_h100_cost();
  // Requests/s with every batch full: a request costs its share of 199 decode steps and its prefill.
  const double capacity = 3 / (199 * c.decode_step_s(64) / 64 + 1000 * c.prefill_s_per_token);
  for (const double load : {0.6, 0.95}) {
    const PlaySpec s = loaded_pool(load * capacity);
    const PlayResult exact = play_requests(s, c, c);
    const BatchPlayResult batch = play_batches(s, c);
    INFO("load " << load << " ttft " << exact.ttft_mean_s << " " << batch.ttft_mean_s() << " p99 " << exact.ttft_p99_s
                  << " " << BatchPlayResult::quantile(batch.ttft_s, 0.99));
    CHECK(batch.completed == Approx(exact.completed).epsilon(0.02));
    CHECK(batch.tpot_mean_s() == Approx(exact.tpot_mean_s).epsilon(0.03));
    CHECK(BatchPlayResult::quantile(batch.tpot_s, 0.99) == Approx(exact.tpot_p99_s).epsilon(0.03));
    const double it_s = c.decode_step_s(64) + 1000 * c.prefill_s_per_token;
    CHECK(std::abs(batch.ttft_mean_s() - exact.ttft_mean_s) <= 0.1 * exact.ttft_mean_s + it_s);
    CHECK(std::abs(BatchPlayResult::quantile(batch.ttft_s, 0.99) - exact.ttft_p99_s) <= 0.15 * exact.ttft_p99_s + it_s);
    CHECK(batch.met == batch.completed); // loose SLOs
  }
}

TEST_CASE("a failure in the batch play retries the struck instance's requests and conserves them", "[serving]") {
  // One of 3 instances fails at 100 s and serves again at 160 s: its requests in flight (at most its batch of
  // 64, and in a loaded pool close to it) are retried; every request that arrived is served in the end; the
  // request-level play retries a number within the same bounds (another draw of the batch's fluctuation).
  const IterationCost c = llama_h100_cost();
  PlaySpec s = loaded_pool(0.8 * 3 / (199 * c.decode_step_s(64) / 64 + 1000 * c.prefill_s_per_token));
  s.measure_from_s = 0;
  s.requests = 10000;
  s.outages.push_back(Outage{1, 100, 160});
  const BatchPlayResult r = play_batches(s, c);
  const PlayResult exact = play_requests(s, c, c);
  CHECK(r.arrived == s.requests);
  CHECK(r.completed == s.requests);
  CHECK(r.retried > 32);
  CHECK(r.retried <= 64);
  CHECK(exact.retried > 32);
  CHECK(exact.retried <= 64);
  // Without a return, the struck instance's requests go to the two others and are still all served.
  s.outages = {Outage{1, 100, 1e300}};
  s.arrival_req_per_s *= 0.5;
  CHECK(play_batches(s, c).completed == s.requests);
}

TEST_CASE("a steady start fills each instance with the fluid steady state of its share", "[serving]") {
  // 3 instances at λ = 12 requests/s: each admits a = (λ/3)·t_it requests an iteration and holds a at each
  // of the osl − 1 = 199 decode steps, t_it = step(199a) + 1000a·prefill_s_per_token (solved here by the
  // same fixed point). A failure of instance 1 just after the start retries its whole steady batch, 199a
  // (± 1 for the rounding carry); without the steady start the pool is empty and nothing is retried.
  const IterationCost c = llama_h100_cost();
  const double lambda = 12;
  double t = c.decode_step_s(1), a = 0;
  for (int i = 0; i < 100; ++i) {
    a = lambda / 3 * t;
    t = c.decode_step_s(static_cast<int>(std::lround(199 * a))) + 1000 * a * c.prefill_s_per_token;
  }
  REQUIRE(199 * a < c.max_batch);
  PlaySpec s = loaded_pool(lambda);
  s.requests = 2000;
  s.measure_from_s = 0;
  s.outages.push_back(Outage{1, 1e-3, 30});
  const BatchPlayResult steady = play_batches(s, c, true);
  CHECK(steady.retried == Approx(199 * a).margin(1));
  CHECK(steady.completed == s.requests); // the steady batch is not measured: the arrivals are
  CHECK(play_batches(s, c, false).retried == 0);
}
