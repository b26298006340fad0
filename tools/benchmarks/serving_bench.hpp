// Serving case of dcsim-bench: the wall time of one operating curve (issue 28: <= 10 ms per instance
// configuration), the calibration table (docs/serving.md) and the generation study (scenarios/README.md).
#pragma once

namespace dcsim::tools {

/// Prints the case; returns 0 when the speed target is met.
int run_serving_case();
/// Prints docs/serving-study.md: the generation study's tables at the current cost defaults (markdown).
void print_study_markdown();

} // namespace dcsim::tools
