// Which way is better for each metric of summary.csv / replicas.csv (replica_result.hpp defines them).
//
// `dcsim compare` flags a regression only on metrics with a direction: a candidate is worse when a
// HIGHER metric went down or a LOWER metric went up. Metrics that describe the input or a policy
// choice (checkpoint interval, expected MTBF, idle or spare GPU-time held by design) have NONE: they are
// reported and compared, but never fail a comparison. A metric that is not declared here has no
// direction either; a unit test requires every metric the ledger emits to be declared, so a new metric
// is declared here when it is added.
//
//   HIGHER  goodput_frac, mfu_frac, effective_mfu_frac, tokens_per_s, effective_tokens_per_s,
//           job_mttf_h, ledger_productive_gpu_h
//   LOWER   step_time_s, interruptions, failures, ledger_<job state>_gpu_h for every job state but
//           productive (DESIGN §4: they are the losses), ledger_repair_gpu_h
//   NONE    interruptions_planned, expected_job_mtbf_h, checkpoint_interval_s, checkpoints,
//           ledger_idle_gpu_h, ledger_spare_gpu_h
#pragma once

#include <optional>
#include <string_view>

namespace dcsim::ledger {

enum class Better { HIGHER, LOWER, NONE };

/// The declared direction of a metric; nullopt when the metric is not declared (treated as NONE).
std::optional<Better> metric_direction(std::string_view metric);
std::string_view better_name(Better better); ///< "higher", "lower", "none"

} // namespace dcsim::ledger
