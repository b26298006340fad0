// The metric table (models/ledger/metric_table.hpp): every metric a replica emits is declared there,
// with the scope of the rows it appears on; directions and replicas.csv's columns come from it.
#include "models/ledger/metric_table.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/world.hpp"
#include "sim/process_pool.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/cost.hpp"
#include "tools/dcsim/outputs.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace dcsim::ledger;

namespace {

void require_declared(const Metrics& metrics, MetricScope row, const std::string& entity) {
  for (const auto& [name, value] : metrics) {
    INFO(entity << ": " << name << " (add it to models/ledger/metric_table.cpp)");
    const MetricDef* def = find_metric(name);
    REQUIRE(def != nullptr);
    CHECK(scope_covers(def->scope, row));
  }
}

} // namespace

TEST_CASE("every metric that small scenarios emit is declared in the metric table with its scope",
          "[ledger][metrics]") {
  // Jobs, services, preemptions, cooling and power caps: between them these scenarios emit every row
  // kind and every facility figure; with a /cost block, the cost metrics too. Two replicas each, through
  // the production path (test::simulate).
  std::vector<dcsim::Scenario> scenarios;
  for (const char* file : {"scenarios/default.json", "scenarios/shared-inference.json",
                           "scenarios/cooling-heatwave.json", "scenarios/power-demand-response.json"})
    scenarios.push_back(dcsim::test::scenario_from_file(file, {"replicas=2", "cost={}"}));
  const auto runs = dcsim::test::simulate_all(scenarios);
  std::set<std::string> emitted;
  const auto check = [&emitted](const Metrics& m, MetricScope row, const std::string& entity) {
    require_declared(m, row, entity);
    for (const auto& [name, value] : m)
      emitted.insert(name);
  };
  for (std::size_t s = 0; s < runs.size(); ++s) {
    REQUIRE(runs[s].size() == 2);
    bool gpu_priced = false;
    const dcsim::cost::CostModel cost = dcsim::tools::scenario_cost_model(scenarios[s], gpu_priced);
    for (const auto& r : runs[s]) {
      for (const auto& job : r.jobs) {
        check(job_metrics(job, r.peak_flops_per_gpu), MetricScope::JOB, job.name);
        check(dcsim::cost::job_cost_metrics(cost, r, job), MetricScope::JOB, job.name);
      }
      for (const auto& sv : r.services) {
        check(service_metrics(sv, r.duration), MetricScope::SERVICE, sv.name);
        check(dcsim::cost::service_cost_metrics(cost, r, sv), MetricScope::SERVICE, sv.name);
      }
      check(cluster_metrics(r), MetricScope::CLUSTER, "cluster");
      check(dcsim::cost::cluster_cost_metrics(cost, r), MetricScope::CLUSTER, "cluster");
      // The production formatting accepts them (it throws on an undeclared metric).
      CHECK_NOTHROW(dcsim::tools::format_replica_rows(scenarios[s], r));
      CHECK_NOTHROW(dcsim::tools::format_replica_rows(scenarios[s], r, &cost));
    }
  }
  // ...and the table declares nothing that is never emitted.
  for (const auto& def : metric_table()) {
    INFO(def.name);
    CHECK(emitted.count(def.name) == 1);
  }
}

TEST_CASE("a replica's metrics and rows survive the child-to-parent serialiser exactly", "[ledger][metrics]") {
  // ledger::encode_replica / decode_replica carry every replica from its child to the parent (dcsim run,
  // sweep, the test harness). Compare, inside the child that ran the replica, what the outputs make of
  // the result before and after the round trip: a field the serialiser forgot shows up here.
  for (const char* file : {"scenarios/default.json", "scenarios/shared-inference.json",
                           "scenarios/cooling-heatwave.json", "scenarios/power-demand-response.json"}) {
    INFO(file);
    const dcsim::Scenario scenario = dcsim::test::scenario_from_file(file, {"replicas=1"});
    const std::string problem = dcsim::sim::run_in_child([&] {
      dcsim::World world(scenario);
      const ReplicaResult r = world.run_replica(0);
      const ReplicaResult back = decode_replica(encode_replica(r));
      const auto a = dcsim::tools::replica_outputs(scenario, r), b = dcsim::tools::replica_outputs(scenario, back);
      if (a.rows.replicas != b.rows.replicas || a.rows.ledger != b.rows.ledger || a.rows.causes != b.rows.causes ||
          a.rows.events != b.rows.events || a.rows.timeseries != b.rows.timeseries || a.rows.racks != b.rows.racks)
        return std::string("rows differ after the round trip");
      if (a.metrics.size() != b.metrics.size()) return std::string("entities differ after the round trip");
      for (std::size_t e = 0; e < a.metrics.size(); ++e)
        for (std::size_t m = 0; m < a.metrics[e].second.size(); ++m) {
          const double x = a.metrics[e].second[m].second, y = b.metrics[e].second.at(m).second;
          if (!(x == y || (std::isnan(x) && std::isnan(y))))
            return a.metrics[e].first + " " + a.metrics[e].second[m].first + " differs after the round trip";
        }
      return encode_replica(back) == encode_replica(r) ? std::string() : std::string("re-encoding differs");
    });
    INFO(problem);
    CHECK(problem.empty());
  }
}

TEST_CASE("the metric table: unique names with units in them, a unit, a one-sentence meaning",
          "[ledger][metrics]") {
  std::set<std::string> names;
  for (const auto& def : metric_table()) {
    INFO(def.name);
    CHECK(names.insert(def.name).second);
    CHECK_FALSE(def.unit.empty());
    CHECK_FALSE(def.meaning.empty());
    CHECK(def.meaning.find(". ") == std::string::npos);
  }
  // The ledger families are the ledger's states.
  std::vector<std::string> cluster_states, service_states;
  for (const auto& def : metric_table()) {
    if (def.family.empty()) continue;
    const std::string state = def.name.substr(7, def.name.size() - 7 - 6); // ledger_<state>_gpu_h
    if (def.family == "ledger_<job state>_gpu_h" || def.family == "ledger_<cluster-only state>_gpu_h")
      cluster_states.push_back(state);
    if (def.family == "ledger_<service state>_gpu_h") service_states.push_back(state);
  }
  CHECK(cluster_states == cluster_ledger_states());
  CHECK(service_states == service_ledger_states());
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

TEST_CASE("the summary table dcsim run prints shows the metrics marked on_terminal", "[ledger][metrics]") {
  dcsim::tools::RunSummary summary;
  std::vector<std::pair<std::string, dcsim::sim::Summary>> metrics;
  const std::vector<double> values = {1.0, 2.0};
  for (const auto& def : metric_table())
    metrics.emplace_back(def.name, dcsim::sim::summarize(values));
  summary.entities.emplace_back("cluster", metrics);
  const std::string table = dcsim::tools::summary_table(dcsim::Scenario{}, summary, 8);
  for (const auto& def : metric_table()) {
    INFO(def.name);
    CHECK((table.find(" " + def.name + " ") != std::string::npos) == def.on_terminal);
  }
  CHECK(find_metric("goodput_frac")->on_terminal);
  CHECK_FALSE(find_metric("energy_mwh")->on_terminal);
}
