// The two timescales of a served model (models/serving/service_timeline.hpp): the fluid mode, windows of
// request-level play, and the two checked one against the other.
#include "models/serving/service_timeline.hpp"
#include "sim/json_reader.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;
using namespace dcsim::serving;

namespace {

hardware::HardwareSpec hardware_of(const char* json) {
  sim::Problems problems;
  const sim::Json doc = sim::Json::parse(json);
  const sim::Node node(doc, "/hardware", hardware::hardware_keys(), problems);
  hardware::HardwareSpec hw = hardware::decode_hardware(node);
  REQUIRE(problems.empty());
  return hw;
}

hardware::HardwareSpec h100() {
  return hardware_of(R"({"gpu": {"model": "h100-sxm"}, "rack": {"kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 4}})");
}

/// Llama-3 70B TP8 fp8 on H100, 1000/200 requests, loose SLOs unless said.
ServingSpec llama(double tpot_slo_s = 0.05, double ttft_slo_s = 100) {
  ServingSpec s;
  s.model = "llama3-70b";
  s.isl = 1000;
  s.osl = 200;
  s.instance = InstanceConfig{8, 1, 1, false, hardware::Precision::FP8, 1.0};
  s.tpot_slo_s = tpot_slo_s;
  s.ttft_slo_s = ttft_slo_s;
  s.window_s = 600;
  s.peak_window_load_frac = 2; // no peak windows unless a test asks
  return s;
}

} // namespace

TEST_CASE("the latency histogram's quantiles are within its bin width", "[serving]") {
  // Values 1 … 1000 ms with equal weights: the median is 0.5 s and the 99th percentile 0.99 s; a bin is
  // 10^(1/50) = 4.7% wide, so the geometric centre is within 2.3%.
  LatencyHistogram h;
  CHECK(std::isnan(h.quantile(0.5)));
  for (int i = 1; i <= 1000; ++i)
    h.add(i * 1e-3, 2.0);
  CHECK(h.total_weight() == Approx(2000));
  CHECK(h.quantile(0.5) == Approx(0.5).epsilon(0.025));
  CHECK(h.quantile(0.99) == Approx(0.99).epsilon(0.025));
}

TEST_CASE("the fluid mode serves what the pool's capacity allows and sheds the rest", "[serving]") {
  ServiceTimeline t(llama(), h100(), 1);
  const double cap = t.capacity_req_per_s(4);
  REQUIRE(cap > 0);
  CHECK(cap == Approx(4 * t.capacity_req_per_s(1)));
  // An hour at half the capacity: every request served and meeting the loose SLOs; then an hour at twice
  // the capacity: half of that hour's requests shed (admission control), those served meet the SLO.
  t.advance(3600, 4, 0.5 * cap);
  ServingTotals a = t.totals();
  CHECK(a.requests_demanded == Approx(0.5 * cap * 3600));
  CHECK(a.requests_served == Approx(a.requests_demanded));
  CHECK(a.requests_met == Approx(a.requests_demanded));
  const FluidState f = fluid_state(t.curve(), 4, 0.5 * cap, 0.05);
  CHECK(a.tpot_p50_s == Approx(f.tpot_s).epsilon(0.025));
  CHECK(a.ttft_p50_s == Approx(f.ttft_s).epsilon(0.025));
  t.advance(3600, 4, 2 * cap);
  const ServingTotals b = t.totals();
  CHECK(b.requests_demanded == Approx(2.5 * cap * 3600));
  CHECK(b.requests_served == Approx(1.5 * cap * 3600));
  CHECK(b.windows == 0);
  // The prefill share of instance time at the SLO point: (TPOT − decode step) / TPOT.
  CHECK(b.prefill_time_frac > 0);
  CHECK(b.prefill_time_frac < 1);
}

TEST_CASE("a demand-peak window and the fluid mode agree where both apply", "[serving]") {
  // The same hour at 85% of 4 instances' capacity, once fluid only and once with a peak window of 600 s
  // played request by request (2 of the 4 instances at a time: the window's request cap). Both serve
  // every request (±3%: Poisson arrivals), the play's median TPOT is the fluid's within 25% (the
  // fluid runs at a curve point a little above the load's batch; the play's batch fluctuates), and with
  // loose SLOs both meet them all.
  ServingSpec spec = llama();
  ServiceTimeline fluid_only(spec, h100(), 7);
  spec.peak_window_load_frac = 0.8;
  ServiceTimeline both(spec, h100(), 7);
  const double lambda = 0.85 * both.capacity_req_per_s(4);
  for (ServiceTimeline* t : {&fluid_only, &both}) {
    t->on_demand_step(4, lambda);
    const double first = t->window_open() ? t->window_left_s() : 3600;
    t->advance(first, 4, lambda);
    t->close_window();
    t->advance(3600 - first, 4, lambda);
  }
  const ServingTotals f = fluid_only.totals(), w = both.totals();
  CHECK(f.windows == 0);
  REQUIRE(w.windows == 1);
  CHECK(w.window_requests > 1000);
  CHECK(w.requests_served == Approx(w.requests_demanded).epsilon(0.03));
  CHECK(w.requests_met == Approx(w.requests_served));
  CHECK(f.requests_met == Approx(f.requests_demanded));
  CHECK(w.retried_requests == 0);
  CHECK(w.tpot_p50_s == Approx(f.tpot_p50_s).epsilon(0.25));
}

TEST_CASE("a failure window retries the struck instance's requests and conserves them", "[serving]") {
  // One of 2 instances fails at 60% load and serves again 120 s later: its requests in flight (at most
  // its batch) lose their KV and are retried; every request arriving in the window is served once the
  // instance is back (conservation); the tail latency grows against the same window without the failure.
  auto run = [](bool fail) {
    ServiceTimeline t(llama(), h100(), 3);
    const double lambda = 0.6 * t.capacity_req_per_s(2);
    if (fail) t.on_failure(2, lambda, 1);
    t.advance(120, fail ? 1 : 2, lambda);
    t.advance(480, 2, lambda);
    t.close_window();
    return std::pair{t.totals(), t.curve().max_batch};
  };
  const auto [failed, max_batch] = run(true);
  const ServingTotals healthy = run(false).first;
  REQUIRE(failed.windows == 1);
  CHECK(failed.retried_requests > 0);
  CHECK(failed.retried_requests <= max_batch);
  CHECK(failed.requests_served == Approx(failed.requests_demanded).epsilon(0.05));
  CHECK(failed.ttft_p99_s > healthy.ttft_p99_s);
}

TEST_CASE("an overloaded fluid pool runs at the SLO point, never beyond it", "[serving]") {
  // Above capacity the pool serves C_n at the largest batch meeting the TPOT SLO and sheds the rest: the
  // served requests' TPOT is that point's (within the SLO), not a larger batch's.
  ServiceTimeline t(llama(0.05), h100(), 1);
  const double cap = t.capacity_req_per_s(2);
  const FluidState f = fluid_state(t.curve(), 2, 3 * cap, 0.05);
  CHECK_FALSE(f.meets_slo);
  CHECK(f.served_req_per_s == Approx(cap));
  CHECK(f.tpot_s <= 0.05);
  t.advance(3600, 2, 3 * cap);
  CHECK(t.totals().requests_met == Approx(cap * 3600));
  CHECK(t.totals().tpot_p99_s <= 0.05 * 1.024);
}

TEST_CASE("a failure during an open window is played there: retried and conserved", "[serving]") {
  // 3 instances at 50% load: one fails at 0 (a window opens), a second 60 s later, both back at 120 s.
  // The second failure strikes the played sub-pool too: its requests in flight are retried as well (more
  // retried than with the first failure alone, at most two batches), and every request arriving in the
  // window is served once the pool is whole (conservation).
  auto run = [](bool second) {
    ServiceTimeline t(llama(), h100(), 5);
    const double lambda = 0.5 * t.capacity_req_per_s(3);
    t.on_failure(3, lambda, 1);
    t.advance(60, 2, lambda);
    if (second) t.on_failure(2, lambda, 1);
    t.advance(60, second ? 1 : 2, lambda);
    t.advance(480, 3, lambda);
    t.close_window();
    return std::pair{t.totals(), t.curve().max_batch};
  };
  const auto [two, max_batch] = run(true);
  const ServingTotals one = run(false).first;
  REQUIRE(two.windows == 1);
  CHECK(two.retried_requests > one.retried_requests);
  CHECK(two.retried_requests <= 2 * max_batch);
  CHECK(two.requests_served == Approx(two.requests_demanded).epsilon(0.05));
  CHECK(one.requests_served == Approx(one.requests_demanded).epsilon(0.05));
}
