#include "models/ledger/metric_direction.hpp"
#include "models/ledger/replica_result.hpp"

#include <catch2/catch.hpp>

using namespace dcsim::ledger;

TEST_CASE("every metric the ledger emits declares which way is better", "[ledger][metrics]") {
  // A new metric must be declared in metric_direction.cpp (NONE is a valid declaration).
  JobOutcome job;
  job.gpus = 8;
  ReplicaResult r;
  r.jobs.push_back(job);
  for (const auto& [name, value] : job_metrics(job, 1.0)) {
    INFO(name);
    CHECK(metric_direction(name).has_value());
  }
  for (const auto& [name, value] : service_metrics(ServiceOutcome{}, 1)) {
    INFO(name);
    CHECK(metric_direction(name).has_value());
  }
  for (const auto& [name, value] : cluster_metrics(r)) {
    INFO(name);
    CHECK(metric_direction(name).has_value());
  }
}

TEST_CASE("metric directions: gains higher, losses lower, inputs none, unknown undeclared",
          "[ledger][metrics]") {
  CHECK(*metric_direction("goodput_frac") == Better::HIGHER);
  CHECK(*metric_direction("ledger_productive_gpu_h") == Better::HIGHER);
  CHECK(*metric_direction("ledger_rework_gpu_h") == Better::LOWER);
  CHECK(*metric_direction("ledger_waiting_gpu_h") == Better::LOWER);
  CHECK(*metric_direction("step_time_s") == Better::LOWER);
  CHECK(*metric_direction("checkpoint_interval_s") == Better::NONE);
  CHECK(*metric_direction("ledger_spare_gpu_h") == Better::NONE);
  CHECK(*metric_direction("served_frac") == Better::HIGHER);
  CHECK(*metric_direction("preemptions") == Better::LOWER);
  CHECK_FALSE(metric_direction("no_such_metric").has_value());
}

TEST_CASE("cluster effective MFU counts each job against the peak of its own precision", "[ledger][metrics]") {
  // A cluster of 16 GPUs for 1 h. Job a: 8 GPUs, fp8 (peak 2e15), all hour productive at 1e15 model FLOP/s
  // per GPU (MFU 0.5). Job b: 8 GPUs at the cluster's bf16 peak (1e15), productive half the hour at MFU 0.4.
  // Cluster effective MFU = (8 x 0.5 x 1 h + 8 x 0.4 x 0.5 h) / (16 x 1 h) = 0.35.
  ReplicaResult r;
  r.gpus = 16;
  r.duration = dcsim::sim::hours_to_ticks(1);
  r.peak_flops_per_gpu = 1e15;
  JobOutcome a;
  a.gpus = 8;
  a.step_time_s = 1;
  a.model_flops_per_step = 8 * 1e15;
  a.peak_flops_per_gpu = 2e15;
  a.gpu_h[static_cast<std::size_t>(dcsim::workload::JobTime::PRODUCTIVE)] = 8;
  JobOutcome b = a;
  b.model_flops_per_step = 8 * 0.4e15;
  b.peak_flops_per_gpu = 0; // the replica's
  b.gpu_h[static_cast<std::size_t>(dcsim::workload::JobTime::PRODUCTIVE)] = 4;
  r.jobs = {a, b};
  double effective = -1;
  for (const auto& [name, value] : cluster_metrics(r))
    if (name == "effective_mfu_frac") effective = value;
  CHECK(effective == Approx(0.35));
}
