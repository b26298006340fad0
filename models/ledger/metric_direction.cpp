#include "models/ledger/metric_direction.hpp"

#include "models/workload/training_job.hpp"

#include <string>
#include <utility>

namespace dcsim::ledger {

namespace {

constexpr std::pair<std::string_view, Better> DECLARED[] = {
    {"goodput_frac", Better::HIGHER},
    {"mfu_frac", Better::HIGHER},
    {"effective_mfu_frac", Better::HIGHER},
    {"tokens_per_s", Better::HIGHER},
    {"effective_tokens_per_s", Better::HIGHER},
    {"job_mttf_h", Better::HIGHER},
    {"step_time_s", Better::LOWER},
    {"interruptions", Better::LOWER},
    {"failures", Better::LOWER},
    {"interruptions_planned", Better::NONE},
    {"expected_job_mtbf_h", Better::NONE},
    {"checkpoint_interval_s", Better::NONE},
    {"checkpoints", Better::NONE},
    {"queue_h", Better::LOWER},
    {"completion_h", Better::LOWER},
    {"preemptions", Better::LOWER},
    // Inference services (models/workload/inference_service.hpp).
    {"served_frac", Better::HIGHER},
    {"demand_tokens_per_s", Better::NONE},
    {"served_tokens_per_s", Better::HIGHER},
    {"moves", Better::NONE},
    {"ledger_serving_gpu_h", Better::NONE},
    {"ledger_moving_gpu_h", Better::LOWER},
    {"ledger_down_gpu_h", Better::LOWER},
    {"ledger_inference_gpu_h", Better::NONE},
    // Energy and cooling (models/facility.hpp).
    {"energy_kwh", Better::NONE}, // more work done costs more energy: per token or per useful GPU-hour decides
    {"energy_mwh", Better::NONE},
    {"mean_power_kw", Better::NONE},
    {"peak_power_kw", Better::LOWER},
    {"energy_per_token_j", Better::LOWER},
    {"energy_per_useful_gpu_h_kwh", Better::LOWER},
    {"cooling_isolated_gpu_h", Better::LOWER},
    {"throttled_gpu_h", Better::LOWER},
    {"power_capped_gpu_h", Better::LOWER},
    // Cluster-only GPU-time categories (the job states are derived below).
    {"ledger_repair_gpu_h", Better::LOWER},
    {"ledger_idle_gpu_h", Better::NONE},
    {"ledger_spare_gpu_h", Better::NONE},
};

} // namespace

std::optional<Better> metric_direction(std::string_view metric) {
  if (metric.empty()) return std::nullopt;
  for (const auto& [name, better] : DECLARED)
    if (name == metric) return better;
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s) {
    const auto state = static_cast<workload::JobTime>(s);
    if (metric == "ledger_" + std::string(workload::job_time_name(state)) + "_gpu_h")
      return state == workload::JobTime::PRODUCTIVE ? Better::HIGHER : Better::LOWER;
  }
  return std::nullopt;
}

std::string_view better_name(Better better) {
  switch (better) {
  case Better::HIGHER:
    return "higher";
  case Better::LOWER:
    return "lower";
  case Better::NONE:
    return "none";
  }
  return "?";
}

} // namespace dcsim::ledger
