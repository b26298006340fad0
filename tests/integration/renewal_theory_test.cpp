// The simulated goodput of a synchronous job against renewal theory.
//
// Model (models/workload/checkpoint_interval.hpp): failures strike the job's G GPUs as a Poisson process
// of rate λ = G / MTBF_gpu; a failure is detected after D (failures during detection extend it until a
// failure-free gap of D: E[det] = (e^{λD} − 1)/λ); the job then restarts for R (a failure sends it back to
// detection: E[rec] = E[det] + (1/λ + E[det])(e^{λR} − 1)); a segment of compute τ + blocking write δ must
// run uninterrupted: E[segment] = (1/λ + E[rec])(e^{λ(τ+δ)} − 1); goodput = τ / E[segment].
// Spares are always at hand (8 in-rack spare GPUs per rack, repairs of 6 minutes), so the job never waits.
// Finite-run effects are small: the initial launch (R) and the last partial segment are O((τ+R)/T) with
// T = 8,760 h per replica; the failed GPU cannot fail again while down (relative effect 1/G).
#include "models/workload/checkpoint_interval.hpp"
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace dcsim;

namespace {

constexpr int JOB_GPUS = 256; // 4 racks x 64 active GPUs

Scenario renewal_scenario(double job_mtbf_h, double detect_s, double restart_s, double interval_s, double write_s,
                          int replicas, double duration_h, const std::string& clock = "always") {
  const double gpu_mtbf_h = job_mtbf_h * JOB_GPUS;
  const std::string json = fmt::format(R"({{
    "name": "renewal", "seed": 11, "replicas": {}, "duration_h": {},
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 4 }},
    "failures": {{ "clock": "{}",
                  "modes": [ {{ "name": "gpu", "scope": "gpu", "mtbf_h": {}, "detect_s": {}, "repair_h": 0.1 }} ] }},
    "operations": {{ "restart_s": {} }},
    "jobs": [ {{ "name": "j", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e15,
                 "checkpoint": {{ "interval_s": {}, "write_s": {} }} }} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                       replicas, duration_h, clock, gpu_mtbf_h, detect_s, restart_s, JOB_GPUS, interval_s,
                                       write_s);
  return test::scenario_from_text(json);
}

struct Case {
  double mtbf_h, detect_s, restart_s, interval_s, write_s;
};

} // namespace

TEST_CASE("goodput matches renewal theory within 0.01 on four parameter sets", "[scenario][theory]") {
  const std::vector<Case> cases = {
      {8.0, 60, 300, 1800, 60},   // λτ = 0.0625
      {2.0, 120, 600, 3600, 120}, // λτ = 0.5: heavy losses, a third of the time
      {24.0, 300, 1200, 7200, 300},
      {1.0, 30, 120, 600, 30}, // λτ = 0.167, a failure per hour
  };
  std::vector<Scenario> scenarios;
  for (const auto& c : cases)
    scenarios.push_back(renewal_scenario(c.mtbf_h, c.detect_s, c.restart_s, c.interval_s, c.write_s, 6, 8760));
  const auto results = test::simulate_all(scenarios);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const double theory = workload::renewal_goodput(
        {1.0 / (c.mtbf_h * 3600.0), c.detect_s, c.restart_s, c.interval_s, c.write_s});
    const double measured = test::mean_metric(results[i], "j", "goodput_frac");
    INFO(fmt::format("MTBF {} h, D {} s, R {} s, τ {} s, δ {} s: theory {:.5f}, simulated {:.5f}", c.mtbf_h,
                     c.detect_s, c.restart_s, c.interval_s, c.write_s, theory, measured));
    CHECK(std::fabs(measured - theory) < 0.01);
    for (const auto& r : results[i]) {
      test::require_conserved(r);
      CHECK(r.jobs[0].gpu_h[static_cast<std::size_t>(workload::JobTime::WAITING)] == 0); // spares always at hand
    }
  }
}

TEST_CASE("the best checkpoint interval of a sweep is within 10% of Daly's", "[scenario][theory]") {
  // MTBF 2 h, δ = 300 s: Daly τ = 1,883.9 s. Sweep τ = τ_Daly · e^u, u in [-0.8, 0.8] step 0.2, with the
  // same seeds at every point (the failure history does not depend on τ: common random numbers), fit a
  // parabola to goodput(u) and take its vertex.
  const double mtbf_s = 7200, write_s = 300;
  const double daly = workload::daly_interval_s(write_s, mtbf_s);
  CHECK(daly == Approx(1883.9).epsilon(1e-3));
  std::vector<double> us;
  std::vector<Scenario> scenarios;
  for (int k = -4; k <= 4; ++k) {
    us.push_back(0.2 * k);
    scenarios.push_back(renewal_scenario(2.0, 60, 300, std::round(daly * std::exp(0.2 * k)), write_s, 8, 8760));
  }
  const auto results = test::simulate_all(scenarios);
  // Least squares for g = a + b·u + c·u².
  double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};
  for (std::size_t i = 0; i < us.size(); ++i) {
    const double g = test::mean_metric(results[i], "j", "goodput_frac");
    double p = 1;
    for (double& si : s) {
      si += p;
      p *= us[i];
    }
    t[0] += g;
    t[1] += g * us[i];
    t[2] += g * us[i] * us[i];
  }
  // Normal equations [[s0 s1 s2][s1 s2 s3][s2 s3 s4]] · [a b c] = t, solved by Cramer's rule.
  auto det3 = [](double a, double b, double c, double d, double e, double f, double g, double h, double i) {
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  };
  const double d = det3(s[0], s[1], s[2], s[1], s[2], s[3], s[2], s[3], s[4]);
  const double b = det3(s[0], t[0], s[2], s[1], t[1], s[3], s[2], t[2], s[4]) / d;
  const double c = det3(s[0], s[1], t[0], s[1], s[2], t[1], s[2], s[3], t[2]) / d;
  REQUIRE(c < 0); // a maximum
  const double best = daly * std::exp(-b / (2 * c));
  INFO(fmt::format("Daly {:.1f} s, empirical best {:.1f} s", daly, best));
  CHECK(std::fabs(best / daly - 1) < 0.10);
}

TEST_CASE("a failure clock paused during recovery matches renewal theory and so do interrupted restarts",
          "[scenario][theory]") {
  // MTBF 1 h over the job, D = 120 s, R = 1,200 s (λR = 1/3), τ = 1,800 s, δ = 60 s.
  // always: failures keep striking while the job detects and restarts. Each recovery is a series of restart
  //   attempts, each interrupted with probability 1 − e^{−λR}: interrupted restarts per interruption of
  //   training = e^{λR} − 1 = 0.3956; goodput = renewal_goodput (E[rec] with detection extended and
  //   restarts repeated) = 0.5123.
  // paused_during_recovery: no strike on a recovering job's GPUs (discarding Poisson strikes = pausing the
  //   clock); E[rec] = D + R; no restart is interrupted; goodput = τ / ((1/λ + D + R)(e^{λ(τ+δ)} − 1)) = 0.5409.
  // Sampling error: ~5,000 interruptions of training per replica-year, 4 replicas: the ratio's relative
  // standard error is ~1.5% (a 6% bound is 4σ); goodput within 0.01 as in the test above.
  const double mtbf_h = 1.0, detect_s = 120, restart_s = 1200, interval_s = 1800, write_s = 60;
  const std::vector<std::string> clocks = {"always", "paused_during_recovery"};
  std::vector<Scenario> scenarios;
  for (const auto& clock : clocks)
    scenarios.push_back(renewal_scenario(mtbf_h, detect_s, restart_s, interval_s, write_s, 4, 8760, clock));
  const auto results = test::simulate_all(scenarios);
  const double l = 1.0 / (mtbf_h * 3600.0);
  for (std::size_t i = 0; i < clocks.size(); ++i) {
    const bool paused = clocks[i] != "always";
    const double theory = workload::renewal_goodput({l, detect_s, restart_s, interval_s, write_s, paused});
    const double measured = test::mean_metric(results[i], "j", "goodput_frac");
    const double training = test::mean_metric(results[i], "j", "interruptions_training");
    const double recovery = test::mean_metric(results[i], "j", "interruptions_recovery");
    const double discarded = test::mean_metric(results[i], "cluster", "failures_discarded");
    INFO(fmt::format("clock {}: goodput theory {:.4f} simulated {:.4f}; interruptions training {:.1f} recovery "
                     "{:.1f}; discarded {:.1f}",
                     clocks[i], theory, measured, training, recovery, discarded));
    CHECK(theory == Approx(paused ? 0.5409 : 0.5123).margin(1e-4));
    CHECK(std::fabs(measured - theory) < 0.01);
    CHECK(test::mean_metric(results[i], "j", "interruptions") == Approx(training + recovery).epsilon(1e-12));
    if (paused) {
      CHECK(recovery == 0);
      CHECK(discarded > 0);
    } else {
      CHECK(recovery / training == Approx(std::expm1(l * restart_s)).epsilon(0.06));
      CHECK(discarded == 0);
    }
    for (const auto& r : results[i])
      test::require_conserved(r);
  }
}
