// `dcsim step SCENARIO [--json]`: each job's step time breakdown, FLOP/s, MFU and memory per GPU.
#pragma once

#include "models/scenario.hpp"

#include <string>
#include <vector>

namespace dcsim::tools {

/// Human-readable report of every job's step.
std::string step_report_text(const Scenario& scenario);
/// One JSON object per job and line (JSON Lines).
std::string step_report_json(const Scenario& scenario);

/// `dcsim step`: returns the process exit code (2 on bad input).
int step_command(const std::string& path, const std::vector<std::string>& overrides, bool json,
                 bool allow_outside_files = false);

} // namespace dcsim::tools
