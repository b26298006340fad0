// Running a scenario's replicas: build the World once, run each replica in a forked child.
#pragma once

#include "models/scenario.hpp"
#include "models/world.hpp"
#include "tools/dcsim/outputs.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dcsim::tools {

struct RunProgress {
  bool quiet = true;
};

/// Runs every replica of the World's scenario, `parallel` at a time; results in replica order.
/// Unless quiet, reports progress on stderr once the run has lasted a second.
std::vector<DecodedReplica> run_replicas(World& world, int parallel, bool quiet);

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
