// Test support: run scenarios given as JSON text through the production path (tools/dcsim/runner.hpp).
#pragma once

#include "models/ledger/replica_result.hpp"
#include "models/scenario.hpp"

#include <string>
#include <vector>

namespace dcsim::test {

/// Decodes a scenario from JSON text; fails the test (with every problem) when it does not decode.
Scenario scenario_from_text(const std::string& json, const std::vector<std::string>& overrides = {});
/// Loads a scenario file under the source tree (e.g. "scenarios/default.json"), so that files it names
/// (a facility water trace) resolve next to it; fails the test when it does not decode.
Scenario scenario_from_file(const std::string& relative_path, const std::vector<std::string>& overrides = {});
/// Reads a file under the source tree (e.g. "scenarios/default.json").
std::string source_file(const std::string& relative_path);

/// Runs replicas 0..replicas-1 of `scenario` the way `dcsim run` does (tools::run_replica_results): the
/// World built once (in a child of the test process), one forked child per replica.
std::vector<ledger::ReplicaResult> simulate(const Scenario& scenario, int parallel = 2);

/// Runs several scenarios (e.g. the points of a sweep), each as simulate() does; `parallel` processes
/// share the scenarios and their replicas as `dcsim sweep` shares its points.
std::vector<std::vector<ledger::ReplicaResult>> simulate_all(const std::vector<Scenario>& scenarios,
                                                             int parallel = 2);

/// Checks the exact conservation laws of one replica (job states sum to GPUs x wall; cluster states to
/// GPUs x duration) within floating-point rounding of the hour conversion.
void require_conserved(const ledger::ReplicaResult& r);

double mean_metric(const std::vector<ledger::ReplicaResult>& results, const std::string& job, const std::string& metric);

} // namespace dcsim::test
