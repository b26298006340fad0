// `dcsim topology SCENARIO [--json] [--dot FILE]`: the fabric's sizing (models/fabric/clos_graph.hpp).
#pragma once

#include "models/fabric/clos_graph.hpp"

#include <string>
#include <vector>

namespace dcsim::tools {

struct TopologyOptions {
  std::string scenario_path;
  std::vector<std::string> overrides;
  bool allow_outside_files = false; ///< trace files may lie outside the scenario's folder
  bool json = false;
  std::string dot_path; ///< empty: no Graphviz file
};

/// Runs the command; returns the exit code (0 ok, 1 cannot write the dot file, 2 bad input).
int topology_command(const TopologyOptions& options);

/// The sizing as one JSON object (what --json prints).
std::string sizing_json(const std::string& scenario, const fabric::FabricSpec& spec, const fabric::FabricSizing& z);
/// The sizing as aligned text lines.
std::string sizing_text(const std::string& scenario, const fabric::FabricSpec& spec, const fabric::ClosPlan& plan,
                        const fabric::FabricSizing& z);

} // namespace dcsim::tools
