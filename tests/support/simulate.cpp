#include "tests/support/simulate.hpp"

#include "models/world.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace dcsim::test {

Scenario scenario_from_text(const std::string& json, const std::vector<std::string>& overrides) {
  const auto loaded = tools::load_scenario_text(json, "test.json", overrides);
  INFO(loaded.errors);
  REQUIRE(loaded.scenario.has_value());
  return *loaded.scenario;
}

Scenario scenario_from_file(const std::string& relative_path, const std::vector<std::string>& overrides) {
  const auto loaded = tools::load_scenario(std::string(DCSIM_SOURCE_DIR) + "/" + relative_path, overrides);
  INFO(loaded.errors);
  REQUIRE(loaded.scenario.has_value());
  return *loaded.scenario;
}

std::string source_file(const std::string& relative_path) {
  std::ifstream in(std::string(DCSIM_SOURCE_DIR) + "/" + relative_path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::vector<ledger::ReplicaResult>> simulate_all(const std::vector<Scenario>& scenarios, int parallel) {
  std::vector<std::pair<int, int>> tasks; // (scenario, replica)
  for (std::size_t s = 0; s < scenarios.size(); ++s)
    for (int r = 0; r < scenarios[s].replicas; ++r)
      tasks.emplace_back(static_cast<int>(s), r);
  sim::ProcessPool pool(parallel);
  const auto payloads = pool.map(static_cast<int>(tasks.size()), [&](int task, const auto&) {
    const auto [s, r] = tasks[static_cast<std::size_t>(task)];
    World world(scenarios[static_cast<std::size_t>(s)]);
    return ledger::to_json(world.run_replica(r));
  });
  std::vector<std::vector<ledger::ReplicaResult>> out(scenarios.size());
  for (std::size_t t = 0; t < tasks.size(); ++t)
    out[static_cast<std::size_t>(tasks[t].first)].push_back(ledger::replica_from_json(payloads[t]));
  return out;
}

std::vector<ledger::ReplicaResult> simulate(const Scenario& scenario, int parallel) {
  return simulate_all({scenario}, parallel).front();
}

void require_conserved(const ledger::ReplicaResult& r) {
  const double duration_h = sim::to_hours(r.duration);
  // (The exact, integer checks run inside every replica: World::run_replica throws when they fail.)
  for (const auto& job : r.jobs) {
    if (job.reallocations > 0) continue; // its size changed: GPUs x wall is not its GPU-time
    double sum = 0;
    for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
      sum += ledger::job_state_gpu_h(job, static_cast<workload::JobTime>(s));
    CHECK(sum == Approx(job.gpus * sim::to_hours(job.wall)).epsilon(1e-12));
  }
  double cluster = 0;
  for (double v : ledger::cluster_ledger_gpu_h(r))
    cluster += v;
  CHECK(cluster == Approx(r.gpus * duration_h).epsilon(1e-12));
}

double mean_metric(const std::vector<ledger::ReplicaResult>& results, const std::string& job, const std::string& metric) {
  double sum = 0;
  for (const auto& r : results) {
    const ledger::Metrics m = job == "cluster" ? ledger::cluster_metrics(r) : [&] {
      for (const auto& j : r.jobs)
        if (j.name == job) return ledger::job_metrics(j, r.peak_flops_per_gpu);
      FAIL("no job " << job);
      return ledger::Metrics{};
    }();
    bool found = false;
    for (const auto& [name, value] : m)
      if (name == metric) {
        sum += value;
        found = true;
      }
    REQUIRE(found);
  }
  return sum / static_cast<double>(results.size());
}

} // namespace dcsim::test
