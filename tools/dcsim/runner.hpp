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
};
int run_command(const RunOptions& options);

int default_parallelism();

} // namespace dcsim::tools
