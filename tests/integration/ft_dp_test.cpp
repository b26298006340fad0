// The simulated goodput of a job under fault-tolerant data parallelism (/jobs/*/recovery ft_dp) against a
// renewal-reward expectation.
//
// Model (models/workload/training_job.hpp): failures strike the job's G GPUs as a Poisson process of rate
// λ = G / MTBF_gpu. A failure drops the replica group (of N) holding the failed GPU: the whole job
// stalls σ (stall_s), then runs with N − 1 groups (progress at a = (N−1)/N of full speed) until the group
// is back: the failure is detected after D and repaired r later (no spare: 4 racks of 72 GPUs all held by
// the job, repair_h fixed, unlimited crews), so the group is out for O = D + r from the failure (the stall
// included), then the job stalls ρ (rejoin_s) while it rejoins. No work is lost. Checkpoints (compute τ,
// blocking write δ) go on as usual, τ of progress apart.
//
// Renewal-reward, in the regime where outages do not overlap (λ·(O + ρ) ≪ 1): per failure the job spends
// σ + ρ wall time stalled and O − σ degraded; outside stalls the cycle makes τ of progress per τ/a + δ of
// wall time. Degraded periods (O − σ = 15.5 min) are short against a checkpoint period (31 min) and start
// at a phase of the cycle independent of the failure, so a degraded period computes at the same share
// τ/(τ + δ) of its time as the rest, at rate a. The long-run goodput (productive GPU-time ÷ held) is then
//     g = τ/(τ+δ) · [1 − λ(σ + ρ) − λ(O − σ)(1 − a)] = τ/(τ+δ) · [1 − λ(σ + ρ) − λ(O − σ)/N]
// and the ledger's shares of the held time are: detection (the stalls) λσ; restart (the rejoins) λρ (+ the
// launch R/T); reduced_batch (the dropped group's share) τ/(τ+δ)·λ(O − σ)/N.
// Here MTBF_job = 12 h (λ = 1/43,200 s), D = 60 s, r = 900 s (O = 960 s), σ = 30 s, ρ = 60 s, N = 4,
// τ = 1,800 s, δ = 60 s: g = 0.967742 × (1 − 0.0020833 − 0.0053819) = 0.960518.
// Errors: overlaps (a second failure within O + ρ of a first, probability λ(O + ρ) = 0.024) change the
// loss of that pair by at most its own size: ≤ 0.024 × 0.0075 = 1.8e-4; the launch restart (300 s of
// 8,760 h) 1e-5; the cycle's phase at degraded periods (a(1 − a)δ/τ of their 2.2% of time) 1e-4.
// Sampling: ~730 failures per replica-year, loss per failure ~constant: the loss fraction's standard
// error is 0.0075/√(6 × 730) = 1.1e-4 over 6 replicas. Tolerance 0.002 (> 10 standard errors + the bias
// bounds). The test can fail: counting the dropped group's share as lost entirely (all of the degraded
// time, not 1/N of it) would give g = 0.967742 × (1 − 0.0020833 − 0.0215278) = 0.944893, 0.0156 lower
// (8× the tolerance); a synchronous restart of 300 s per failure (renewal_theory_test.cpp) 0.94 or less.
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace dcsim;
using workload::JobTime;

namespace {

constexpr int JOB_GPUS = 288; // 4 racks x 72 GPUs, no spares

Scenario ft_dp_scenario(double job_mtbf_h, double detect_s, double repair_s, double stall_s, double rejoin_s,
                        int groups, int replicas) {
  const std::string json = fmt::format(R"({{
    "name": "ft_dp", "seed": 17, "replicas": {}, "duration_h": 8760,
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 0 }} }},
    "cluster": {{ "racks": 4 }},
    "failures": {{ "modes": [ {{ "name": "gpu", "scope": "gpu", "mtbf_h": {}, "detect_s": {}, "repair_h": {} }} ] }},
    "operations": {{ "restart_s": 300 }},
    "jobs": [ {{ "name": "j", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e15,
                 "checkpoint": {{ "interval_s": 1800, "write_s": 60 }},
                 "recovery": {{ "strategy": "ft_dp", "replica_groups": {}, "stall_s": {}, "rejoin_s": {} }} }} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                       replicas, job_mtbf_h * JOB_GPUS, detect_s, repair_s / 3600.0, JOB_GPUS, groups,
                                       stall_s, rejoin_s);
  return test::scenario_from_text(json);
}

double share(const std::vector<ledger::ReplicaResult>& results, JobTime state) {
  double in_state = 0, held = 0;
  for (const auto& r : results) {
    for (double h : r.jobs[0].gpu_h)
      held += h;
    in_state += r.jobs[0].gpu_h[static_cast<std::size_t>(state)];
  }
  return in_state / held;
}

} // namespace

TEST_CASE("ft_dp goodput matches its renewal-reward expectation within 0.002", "[scenario][theory]") {
  const double mtbf_h = 12, detect_s = 60, repair_s = 900, stall_s = 30, rejoin_s = 60, tau = 1800, delta = 60;
  const int groups = 4;
  const auto results = test::simulate(ft_dp_scenario(mtbf_h, detect_s, repair_s, stall_s, rejoin_s, groups, 6));
  const double l = 1.0 / (mtbf_h * 3600);
  const double out_s = detect_s + repair_s;
  const double g0 = tau / (tau + delta);
  const double theory = g0 * (1 - l * (stall_s + rejoin_s) - l * (out_s - stall_s) / groups);
  const double all_lost = g0 * (1 - l * (stall_s + rejoin_s) - l * (out_s - stall_s));
  CHECK(theory == Approx(0.960518).margin(1e-6));
  CHECK(theory - all_lost > 0.015);
  const double measured = test::mean_metric(results, "j", "goodput_frac");
  const double reduced = share(results, JobTime::REDUCED_BATCH);
  const double detection = share(results, JobTime::DETECTION);
  INFO(fmt::format("goodput theory {:.5f} simulated {:.5f}; reduced_batch {:.5f} vs {:.5f}; detection {:.5f} vs "
                   "{:.5f}; group drops {:.1f}, interruptions {:.2f}",
                   theory, measured, reduced, g0 * l * (out_s - stall_s) / groups, detection, l * stall_s,
                   test::mean_metric(results, "j", "group_drops"), test::mean_metric(results, "j", "interruptions")));
  CHECK(std::fabs(measured - theory) < 0.002);
  CHECK(reduced == Approx(g0 * l * (out_s - stall_s) / groups).epsilon(0.06));
  CHECK(detection == Approx(l * stall_s).epsilon(0.06));
  // No failure restarts the job (3 of 4 groups always run): only one striking during the launch's restart
  // (300 s: probability 0.7% per replica) would interrupt it, with nothing pending to lose.
  CHECK(share(results, JobTime::REWORK) == 0);
  CHECK(test::mean_metric(results, "j", "interruptions") < 0.5);
  CHECK(test::mean_metric(results, "j", "group_drops") == Approx(8760 / mtbf_h).epsilon(0.06));
  for (const auto& r : results)
    test::require_conserved(r);
}

TEST_CASE("ft_dp replica groups of a model job follow its data-parallel index", "[scenario][theory]") {
  // gb300-llama70b-fabric: 2,048 GPUs, tp 8, pp 4, cp 1, so dp 64; Megatron's rank order
  // r = tp_i + tp·(cp_i + cp·(dp_i + dp·pp_i)): a replica group spans the pipeline stages.
  const Scenario by_default = test::scenario_from_file("scenarios/gb300-llama70b-fabric.json",
                                                       {"jobs.0.recovery.strategy=\"ft_dp\""});
  const auto& r = by_default.jobs[0].recovery;
  CHECK(r.replica_groups == 64); // default: one group per data-parallel replica
  CHECK(r.inner_ranks == 8);
  const int rank = 3 + 8 * (5 + 64 * 3); // tp_i 3, dp_i 5, pp_i 3
  CHECK(r.group_of_rank(rank) == 5);
  CHECK(r.group_of_rank(3 + 8 * 5) == 5); // the same replica in stage 0
  const Scenario sixteen = test::scenario_from_file(
      "scenarios/gb300-llama70b-fabric.json", {"jobs.0.recovery.strategy=\"ft_dp\"", "jobs.0.recovery.replica_groups=16"});
  CHECK(sixteen.jobs[0].recovery.group_of_rank(rank) == 1); // 4 data-parallel replicas per group: 5 / 4
  CHECK(sixteen.jobs[0].recovery.group_of_rank(8 * 63) == 15);
}
