// `dcsim scenario FILE`: the scenario as the loader resolves it, as plain JSON.
//
// The printed document is the file after `--set`, with comments stripped, `name` written out (its
// default is the file name), every key with a constant default in the key tables filled in (one source of
// truth: the tables `dcsim describe` prints), and trace files inlined as the loader reads them
// (facility_water_trace_file -> facility_water_trace, demand_trace_file -> demand_trace), so the output
// stands alone: it runs from any folder, needs no trace file and no --allow-outside-files, and `dcsim
// run` on it gives byte-identical outputs to the original.
//
// A default is filled only where the decoder accepts it: some keys apply only with others (cdu_approach_k
// only with a trace, grid_policy only with grid events, work_h not beside target_tokens), and there their
// absence is the resolved form. Keys whose default is derived (a default note in the tables: the rack's
// GPU count, a fabric's port speed, dp) stay absent, and the loader derives them as before.
#pragma once

#include "tools/dcsim/scenario_file.hpp"

#include <string>
#include <vector>

namespace dcsim::tools {

/// The resolved document of a scenario that loaded without problems (loaded.scenario set).
sim::Json resolved_scenario(const LoadedScenario& loaded);

/// Prints the resolved scenario of `path` on stdout (2-space JSON). Returns 0, or 2 with every problem on
/// stderr when the file does not load.
int scenario_command(const std::string& path, const std::vector<std::string>& overrides,
                     bool allow_outside_files);

} // namespace dcsim::tools
