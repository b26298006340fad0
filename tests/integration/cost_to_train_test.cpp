// Time to train and cost to train (docs/cost.md): a job with a training target in tokens runs until its
// productive steps have retained them; completion_h and cost_to_train_usd against a derivation by hand.
#include "models/cost/run_cost.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/cost.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>

using namespace dcsim;
using workload::JobTime;

TEST_CASE("a training target in tokens: time to train and cost to train, derived by hand",
          "[scenario][cost]") {
  // 128 Rubin GPUs, step 2 s of 4e6 tokens, target 7.2e9 tokens = 1,800 steps = 3,600 s of productive
  // steps. No failures. It starts with a restart_s (600 s) start-up; checkpoints every 600 s of compute,
  // 10 s each, none after the last step: 5 writes. Done at 600 + 3,600 + 50 = 4,250 s = 1.180555... h.
  // It held 128 GPUs for those 4,250 s: its cost to train is its total cost, and its retained tokens are
  // the target exactly.
  const Scenario s = test::scenario_from_text(R"({
    "name": "tt", "replicas": 1, "duration_h": 48,
    "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 4 },
    "operations": { "restart_s": 600 },
    "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 2, "model_flops_per_step": 1e15, "tokens_per_step": 4e6,
                "target_tokens": 7.2e9, "checkpoint": { "interval_s": 600, "write_s": 10 } } ],
    "cost": {}
  })");
  const auto results = test::simulate(s);
  REQUIRE(results.size() == 1);
  const ledger::ReplicaResult& r = results[0];
  const ledger::JobOutcome& job = r.jobs.at(0);
  test::require_conserved(r);
  CHECK(job.completed_at == sim::to_ticks(4250.0));
  CHECK(ledger::job_state_gpu_h(job, JobTime::PRODUCTIVE) == Approx(128.0).epsilon(1e-12));
  CHECK(ledger::job_state_gpu_h(job, JobTime::CHECKPOINT) == Approx(128.0 * 50 / 3600).epsilon(1e-12));
  CHECK(ledger::retained_tokens(job) == Approx(7.2e9).epsilon(1e-12));

  bool gpu_priced = false;
  const cost::CostModel model = tools::scenario_cost_model(s, gpu_priced);
  std::map<std::string, double> m;
  for (const auto& [name, value] : cost::job_cost_metrics(model, r, job))
    m[name] = value;
  // Its share of the cluster's fixed lines for 128 GPUs x 4,250 s of the 288 GPUs x 48 h, with the spare
  // capacity it holds (8 in-rack spares per rack: N/U = 288/256 = 1.125), plus its energy.
  const cost::RunCost cluster = cost::cluster_run_cost(model, 48, r.energy_j / 3.6e9);
  const double share = 128 * 4250.0 / 3600 / (288 * 48);
  const double energy = job.energy_j / 3.6e9 * 1.2 * 80.6;
  CHECK(
      m.at("cost_to_train_usd") ==
      Approx((cluster.capex_usd + cluster.financing_usd + cluster.facility_usd + cluster.crews_usd) * share * 1.125 +
             energy)
          .epsilon(1e-12));
  CHECK(m.at("cost_to_train_usd") == m.at("cost_total_usd"));
  CHECK(m.at("cost_per_mtok_usd") == m.at("cost_total_usd") / (ledger::retained_tokens(job) / 1e6));

  // A target beyond the run is not reached: no completion, no cost to train.
  const auto late = test::simulate(test::scenario_from_text(R"({
    "name": "tt", "replicas": 1, "duration_h": 1,
    "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 4 },
    "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 2, "model_flops_per_step": 1e15, "tokens_per_step": 4e6,
                "target_tokens": 7.2e9 } ],
    "cost": {}
  })"));
  const auto& late_job = late.at(0).jobs.at(0);
  CHECK(late_job.completed_at == -1);
  for (const auto& [name, value] : cost::job_cost_metrics(model, late.at(0), late_job))
    if (name == "cost_to_train_usd") CHECK(std::isnan(value));
}

TEST_CASE("a deadline: met when the work is done by deadline_h, missed otherwise, undefined without one",
          "[scenario][cost]") {
  // The job of the test above finishes at 4,250 s = 1.1806 h (no failures: every replica alike).
  auto met = [](const char* deadline) {
    const std::string text = std::string(R"({
      "name": "dl", "replicas": 1, "duration_h": 48,
      "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
      "cluster": { "racks": 4 }, "operations": { "restart_s": 600 },
      "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 2, "model_flops_per_step": 1e15, "tokens_per_step": 4e6,
                  "target_tokens": 7.2e9, "checkpoint": { "interval_s": 600, "write_s": 10 })") +
                             deadline + "} ] }";
    const auto results = test::simulate(test::scenario_from_text(text));
    for (const auto& [name, value] : ledger::job_metrics(results.at(0).jobs.at(0), 1e15))
      if (name == "deadline_met_frac") return value;
    FAIL("no deadline_met_frac");
    return -1.0;
  };
  CHECK(met(R"(, "deadline_h": 1.2)") == 1.0);   // 4,320 s: done 70 s before
  CHECK(met(R"(, "deadline_h": 1.18)") == 0.0);  // 4,248 s: 2 s late
  CHECK(std::isnan(met("")));
}
