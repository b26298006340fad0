// A job described by a model: the World derives its step from the step-time model, and the run's
// metrics use it (mfu_frac against the precision's peak, tokens_per_s).
#include "models/ledger/replica_result.hpp"
#include "models/workload/step_model.hpp"
#include "models/world.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace dcsim;

TEST_CASE("unit: workload: dcsim run takes a model job's step time and FLOPs from the step-time model") {
  // 2 NVL72 GB200 racks of 64 usable GPUs; one 128-GPU fp8 job, no failures, one replica of an hour.
  const auto loaded = tools::load_scenario_text(R"({
    "replicas": 1, "duration_h": 1,
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 2 },
    "jobs": [ { "name": "j", "gpus": 128,
      "model": { "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "mlp": "swiglu",
                 "seq_len": 8192, "vocab": 128256, "tied_embeddings": false, "global_batch": 256, "precision": "fp8" },
      "parallelism": { "tp": 4, "pp": 2 } } ]
  })",
                                                "t.json");
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  const auto& spec = loaded.scenario->jobs.at(0);
  const workload::StepBreakdown step = workload::healthy_step(*spec.model, loaded.scenario->hardware);
  REQUIRE(step.step_time_s > 0);

  World world(*loaded.scenario);
  CHECK(world.job_timing().at(0).step == sim::to_ticks(step.step_time_s));
  CHECK(world.scenario().jobs.at(0).model_flops_per_step == step.model_flops_per_step);

  const ledger::ReplicaResult result = world.run_replica(0);
  REQUIRE(result.jobs.size() == 1);
  std::map<std::string, double> metrics;
  for (const auto& [name, value] : ledger::job_metrics(result.jobs[0], result.peak_flops_per_gpu))
    metrics[name] = value;
  // The step is rounded to the microsecond in the job's timing.
  CHECK(metrics.at("step_time_s") == Approx(step.step_time_s).epsilon(1e-6));
  CHECK(metrics.at("mfu_frac") == Approx(step.mfu_frac).epsilon(1e-6)); // against the FP8 peak, 5 PFLOP/s
  CHECK(metrics.at("tokens_per_s") == Approx(step.tokens_per_s).epsilon(1e-6));
}
