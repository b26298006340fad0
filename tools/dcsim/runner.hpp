// Running a scenario's replicas: build the World once, run each replica in a forked child.
#pragma once

#include "models/scenario.hpp"
#include "models/world.hpp"
#include "tools/dcsim/outputs.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dcsim::tools {

struct RunProgress {
  bool quiet = true;
};

/// Runs every replica of the World's scenario, `parallel` at a time; results in replica order.
/// Unless quiet, reports progress on stderr once the run has lasted a second. With `publish`, the
/// fraction of the run done is handed to it instead (e.g. by a sweep point) and nothing is printed.
std::vector<DecodedReplica> run_replicas(World& world, int parallel, bool quiet,
                                         const std::function<void(double)>& publish = {});
/// Runs replicas first .. first + count - 1 (same seeds as in a run of first + count replicas).
std::vector<DecodedReplica> run_replica_range(World& world, int first, int count, int parallel, bool quiet,
                                              const std::function<void(double)>& publish = {});

/// Adaptive replication (`--ci-target`): after the scenario's replicas, batches of max(2, n / 2) more
/// replicas (n: replicas so far) run until the 95% interval half-width of every training job's
/// goodput_frac is <= target, or max_replicas have run. The batch sizes depend only on the results, so
/// the outputs do not depend on the parallelism. Returns every replica's result, in replica order.
struct AdaptiveResult {
  std::vector<DecodedReplica> replicas;
  double worst_half_width = 0; ///< over the jobs' goodput_frac
  bool met = false;
};
AdaptiveResult run_until_ci(World& world, double target, int max_replicas, int parallel, bool quiet);
/// The widest 95% half-width of a job's goodput_frac (NaN when undefined: fewer than 2 replicas).
double worst_goodput_half_width(const RunSummary& summary);

/// Name of the file, beside a run's CSV files, holding the scenario document that was run (after
/// `--set` overrides; comments dropped). Reports read it; sweeps compare it to decide whether a point
/// is already complete.
inline constexpr const char* SCENARIO_DOCUMENT_FILE = "scenario.json";
void write_scenario_document(const std::filesystem::path& dir, const sim::Json& document);

/// `dcsim run`: returns the process exit code.
struct RunOptions {
  std::string scenario_path;
  std::string out_dir; ///< empty: out/<scenario name>
  int parallel = 0;    ///< 0: number of CPUs
  bool quiet = false;
  std::vector<std::string> overrides;
  double ci_target = 0; ///< > 0: adaptive replication (see run_until_ci)
  int max_replicas = 200;
  bool allow_outside_files = false; ///< trace files may lie outside the scenario's folder
};
int run_command(const RunOptions& options);

int default_parallelism();

} // namespace dcsim::tools
