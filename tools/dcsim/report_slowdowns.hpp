// The run report's #fabric-slowdowns section (report.hpp lists every section): per replica, the
// distribution over training jobs of fabric_slowdown_frac (replicas.csv; models/workload/step_record.hpp:
// step_shared_s / step_alone_s − 1, how much sharing the fabric with other jobs' collectives and
// converged storage traffic lengthened each job's step): jobs with a value, mean, min, median, 90th
// percentile (nearest rank) and max, and the jobs slowed by more than 1%. A run without the column, or
// whose jobs never trained on a fabric, gets a note.
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::tools {

std::string fabric_slowdown_section(const std::filesystem::path& dir);

} // namespace dcsim::tools
