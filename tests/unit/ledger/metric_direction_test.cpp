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
