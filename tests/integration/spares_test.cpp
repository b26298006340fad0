// Counts of domain swaps and cold-spare activations (cluster metrics domain_swaps, cold_spare_activations)
// against what the spare mechanism implies, derived by hand.
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <numeric>

using namespace dcsim;

namespace {

double cluster_metric(const ledger::ReplicaResult& r, const std::string& name) {
  for (const auto& [n, v] : ledger::cluster_metrics(r))
    if (n == name) return v;
  FAIL("no cluster metric " << name);
  return 0;
}

} // namespace

TEST_CASE("every rack failure under a job moves it to a warm spare: domain swaps = strikes on the job", "[scenario]") {
  // 4 NVL72 racks: a job on 2 (64 GPUs each, 8 in-rack spare GPUs), 2 warm spare racks. One failure mode
  // takes a whole rack (MTBF M = 50 h per rack), repaired in 1 h, so a spare is always at hand. Each strike
  // on a rack the job holds (training, detecting or restarting) makes it move off that rack once: exactly
  // one domain swap per strike on the job. The job holds 2 racks at all times, so the strikes on it are a
  // Poisson count of mean 2T/M = 40 per replica (T = 1,000 h); over 6 replicas the mean has a standard
  // deviation of √(40/6) = 2.6: a bound of 10 is ~4σ.
  const std::string json = R"({
    "name": "swaps", "seed": 5, "replicas": 6, "duration_h": 1000,
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 4 },
    "failures": { "modes": [ { "name": "rack", "scope": "rack", "mtbf_h": 50, "detect_s": 60, "repair_h": 1 } ] },
    "operations": { "restart_s": 300, "spare_racks": 2, "warm_swap_s": 0 },
    "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 1, "model_flops_per_step": 1e15, "checkpoint": { "interval_s": 1800, "write_s": 30 } } ],
    "output": { "timeseries_interval_s": 0, "events": false }
  })";
  const auto results = test::simulate(test::scenario_from_text(json));
  double swaps = 0;
  for (const auto& r : results) {
    const auto& by_mode = r.jobs[0].failures_by_mode;
    const double strikes = static_cast<double>(std::accumulate(by_mode.begin(), by_mode.end(), std::uint64_t{0}));
    CHECK(cluster_metric(r, "domain_swaps") == strikes);
    CHECK(cluster_metric(r, "cold_spare_activations") == 0);
    swaps += cluster_metric(r, "domain_swaps") / static_cast<double>(results.size());
    test::require_conserved(r);
  }
  INFO("mean domain swaps per replica " << swaps);
  CHECK(std::fabs(swaps - 40.0) < 10.0);
}

TEST_CASE("a cold spare is activated once the job's rack fails in time: 1 - e^(-λ(T-w))", "[scenario][theory]") {
  // 2 NVL72 racks: a job on rack 0, rack 1 a cold spare; no warm spare, no idle rack; repairs outlast the
  // run (10^5 h). Racks fail at λ = 1/M (M = T = 100 h), the powered-off cold rack too. The job's rack
  // fails at X ~ Exp(λ); no domain is left, so a cold spare is requested and activated at X + w
  // (w = cold_swap_h = 10 h) if that is before T:  P(activation) = P(X < T − w) = 1 − e^{−λ(T−w)} = 0.5934.
  // The job moves onto it (a domain swap) if the cold rack has not failed by then (independent, rate λ):
  //   P(swap) = ∫₀^{T−w} λe^{−λx} e^{−λ(x+w)} dx = e^{−λw}(1 − e^{−2λ(T−w)})/2 = 0.3777.
  // 400 replicas: binomial standard deviations 0.025 and 0.024; bounds of 0.1 are 4σ.
  const std::string json = R"({
    "name": "cold", "seed": 9, "replicas": 400, "duration_h": 100,
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 2 },
    "failures": { "modes": [ { "name": "rack", "scope": "rack", "mtbf_h": 100, "detect_s": 60, "repair_h": 100000 } ] },
    "operations": { "restart_s": 300, "spare_racks": 0, "cold_spare_racks": 1, "cold_swap_h": 10 },
    "jobs": [ { "name": "j", "gpus": 64, "step_time_s": 1, "model_flops_per_step": 1e15, "checkpoint": { "interval_s": 1800, "write_s": 30 } } ],
    "output": { "timeseries_interval_s": 0, "events": false }
  })";
  const auto results = test::simulate(test::scenario_from_text(json));
  const double l = 1.0 / 100, t = 100, w = 10;
  double activations = 0, swaps = 0;
  for (const auto& r : results) {
    const double a = cluster_metric(r, "cold_spare_activations"), s = cluster_metric(r, "domain_swaps");
    CHECK(a <= 1); // one cold rack
    CHECK(s <= a); // the only other domain is the cold one
    activations += a / static_cast<double>(results.size());
    swaps += s / static_cast<double>(results.size());
    test::require_conserved(r);
  }
  const double p_activation = -std::expm1(-l * (t - w));
  const double p_swap = std::exp(-l * w) * -std::expm1(-2 * l * (t - w)) / 2;
  INFO(fmt::format("activations {:.3f} (theory {:.4f}), swaps {:.3f} (theory {:.4f})", activations, p_activation,
                   swaps, p_swap));
  CHECK(p_activation == Approx(0.5934).margin(1e-4));
  CHECK(p_swap == Approx(0.3777).margin(1e-4));
  CHECK(std::fabs(activations - p_activation) < 0.1);
  CHECK(std::fabs(swaps - p_swap) < 0.1);
}
