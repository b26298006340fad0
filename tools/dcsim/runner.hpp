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

/// Exit codes of the run-like commands (README "Exit codes"): 0 ok, 1 runtime failure, 2 bad input or
/// usage, 3 the run cannot progress (sim::NoProgress: events pile up while simulated time stands still).
inline constexpr int EXIT_RUNTIME_FAILURE = 1;
inline constexpr int EXIT_BAD_INPUT = 2;
inline constexpr int EXIT_NO_PROGRESS = 3;
/// `run --ci-target` not met within --max-replicas (the outputs are written; --ci-target-soft: exit 0).
inline constexpr int EXIT_CI_TARGET_MISSED = 4;

/// The message of a replica that cannot progress, as printed after "dcsim: ".
std::string no_progress_message(int replica, const std::string& why);

struct RunProgress {
  bool quiet = true;
};

/// Runs replicas first .. first + count - 1 of the World's scenario, each in a child forked from this
/// process (which built the World once), `parallel` at a time; results in replica order. The child sends
/// its result back with ledger::encode_replica, the one serialiser between a replica's child and its parent.
/// `dcsim run`, `dcsim sweep` and the test harness (tests/support/simulate.cpp) all run replicas this way.
/// Unless quiet, reports progress on stderr once the run has lasted a second. With `publish`, the
/// fraction of the run done is handed to it instead and nothing is printed.
std::vector<ledger::ReplicaResult> run_replica_results(World& world, int first, int count, int parallel,
                                                       bool quiet, const std::function<void(double)>& publish = {});

/// Runs every replica of the World's scenario, `parallel` at a time; outputs in replica order. Throws
/// sim::NoProgress (message from no_progress_message) when a replica cannot progress.
/// Unless quiet, reports progress on stderr once the run has lasted a second. With `publish`, the
/// fraction of the run done is handed to it instead (e.g. by a sweep point) and nothing is printed.
std::vector<ReplicaOutputs> run_replicas(World& world, int parallel, bool quiet,
                                         const std::function<void(double)>& publish = {});
/// Runs replicas first .. first + count - 1 (same seeds as in a run of first + count replicas).
std::vector<ReplicaOutputs> run_replica_range(World& world, int first, int count, int parallel, bool quiet,
                                              const std::function<void(double)>& publish = {});

/// Adaptive replication (`--ci-target`): after the scenario's replicas, batches of max(2, n / 2) more
/// replicas (n: replicas so far) run until the 95% interval half-width of every training job's
/// goodput_frac is <= target, or max_replicas have run. The batch sizes depend only on the results, so
/// the outputs do not depend on the parallelism. Returns every replica's result, in replica order.
struct AdaptiveResult {
  std::vector<ReplicaOutputs> replicas;
  double worst_half_width = 0; ///< over the jobs' goodput_frac
  bool met = false;
};
/// With `publish` (a sweep point), the share of max_replicas run so far is handed to it.
AdaptiveResult run_until_ci(World& world, double target, int max_replicas, int parallel, bool quiet,
                            const std::function<void(double)>& publish = {});
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
  bool ci_target_soft = false; ///< an unmet --ci-target is a warning, not exit 4
  bool allow_outside_files = false; ///< trace files may lie outside the scenario's folder
  sim::Compression compression = sim::Compression::NONE; ///< --compress: the CSV files as .csv.gz / .csv.zst
  bool force = false;               ///< replace an earlier run's outputs in out_dir
  double memory_budget_gb = 0;      ///< > 0: the memory budget (resource_budget.hpp); 0: the default
  std::vector<std::string> command_line; ///< for run.json
};
int run_command(const RunOptions& options);

int default_parallelism();

} // namespace dcsim::tools
