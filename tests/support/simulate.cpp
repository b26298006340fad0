#include "tests/support/simulate.hpp"

#include "models/world.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
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
  // The production path (tools/dcsim/runner.hpp), as a sweep runs its points: each scenario in a child
  // of its own (one World per process), which builds the World once and forks one grandchild per
  // replica. The scenario's child hands its replicas' results on with the same serialiser, framed by
  // their byte length.
  const int count = static_cast<int>(scenarios.size());
  const int outer = std::max(1, std::min(parallel, count));
  const int inner = std::max(1, parallel / outer);
  sim::ProcessPool pool(outer);
  const auto payloads = pool.map(count, [&](int s, const auto&) {
    World world(scenarios[static_cast<std::size_t>(s)]);
    std::string out;
    for (const auto& r : tools::run_replica_results(world, 0, world.scenario().replicas, inner, true)) {
      const std::string bytes = ledger::encode_replica(r);
      out += std::to_string(bytes.size()) + "\n" + bytes;
    }
    return out;
  });
  std::vector<std::vector<ledger::ReplicaResult>> out(scenarios.size());
  for (std::size_t s = 0; s < payloads.size(); ++s) {
    const std::string& p = payloads[s];
    for (std::size_t pos = 0; pos < p.size();) {
      const std::size_t eol = p.find('\n', pos);
      REQUIRE(eol != std::string::npos);
      const std::size_t size = std::stoull(p.substr(pos, eol - pos));
      out[s].push_back(ledger::decode_replica(p.substr(eol + 1, size)));
      pos = eol + 1 + size;
    }
    REQUIRE(static_cast<int>(out[s].size()) == scenarios[s].replicas);
  }
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
