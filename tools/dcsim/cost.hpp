// `dcsim cost SCENARIO [--json]`: the design's priced bill of materials (models/cost/bill.hpp), at the
// scenario's /cost prices or, without a block, at the sourced defaults (dcsim describe cost), and the
// run-independent rates: capex depreciation, facility and crews per hour, fixed cost per GPU-hour.
#pragma once

#include "models/cost/run_cost.hpp"
#include "models/scenario.hpp"

#include <string>
#include <vector>

namespace dcsim::tools {

struct CostOptions {
  std::string scenario_path;
  std::vector<std::string> overrides;
  bool allow_outside_files = false;
  bool json = false;
};

/// Runs the command; returns the exit code (0 ok, 2 bad input).
int cost_command(const CostOptions& options);

/// The scenario's prices, else every default. `gpu_priced` is false when neither gives a GPU price (a
/// GPU model without a default and no /cost block): the GPUs' line is then 0.
cost::CostSpec scenario_prices(const Scenario& scenario, bool& gpu_priced);
/// The cost model at scenario_prices, the fabric counted by ClosGraph::counts() (as `dcsim topology`).
cost::CostModel scenario_cost_model(const Scenario& scenario, bool& gpu_priced);

/// The bill's lines as aligned text (only the lines of `area` when not empty), and its capex.
std::string bill_text(const cost::Bill& bill, const std::string& area = {});

} // namespace dcsim::tools
