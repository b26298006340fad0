// The report's fabric link utilisation section (`#fabric-utilisation`): per tier, the p50, p99 and max
// link utilisation over time (fabric_utilisation_series.csv, models/fabric/link_utilisation.hpp) of the
// first replica, as step charts (each row holds until the tier's next), and the time-weighted figures of
// fabric_utilisation.csv averaged over replicas. Runs without those files (no fabric, or older runs)
// get no section.
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::tools {

/// `end_s`: the run's end (the last values are drawn to it; 0: unknown, drawn to the last change).
std::string fabric_utilisation_section(const std::filesystem::path& dir, double end_s);

} // namespace dcsim::tools
