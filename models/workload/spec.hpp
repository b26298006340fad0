// Jobs: what runs on the cluster.
//
// A training job is synchronous: it runs on exactly `gpus` GPUs and any failure of one of them stops it.
// Its step time and FLOPs are either measured inputs (`step_time_s`, `model_flops_per_step`,
// `tokens_per_step`) or, when `model` is given, derived from the model and its `parallelism`
// (models/workload/transformer_spec.hpp, step_model.hpp); giving both is an error. A reliability-only
// study may give neither: without `step_time_s` the job's progress is continuous (the checkpoint interval
// is not rounded to steps) and its step_time_s, tokens and MFU metrics are undefined (empty cells);
// without `model_flops_per_step` its MFU is (and the cluster's effective MFU then is too). It checkpoints
// every `interval_s` of compute (rounded to whole steps), or at Daly's interval for the failure rate of
// its GPUs when `interval_s` is "auto"; a checkpoint write blocks training for `write_s`.
#pragma once

#include "models/serving/spec.hpp"
#include "models/workload/recovery_spec.hpp"
#include "models/workload/transformer_spec.hpp"
#include "sim/json_reader.hpp"

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::workload {

/// model_flops_per_step of a measured job that does not give it: MFU is unknown (NaN, empty in the CSVs).
inline constexpr double UNKNOWN_FLOPS = std::numeric_limits<double>::quiet_NaN();

struct CheckpointSpec {
  bool auto_interval = true;
  double interval_s = 0; ///< compute between checkpoints when not auto
  double write_s = 30;
  bool write_given = false; ///< write_s was given: it overrides the write time the tiers would give
  /// Storage tiers the checkpoint goes to, fastest first (names of /storage/tiers); empty: the write
  /// costs write_s and the restart's checkpoint load is part of operations.restart_s.
  std::vector<std::string> tiers;
  bool async = false;      ///< training blocks only for the snapshot into host memory (storage/checkpoint_plan.hpp)
  double size_gb = 0;      ///< given; 0 with size_auto: from the model
  bool size_auto = true;
};

enum class JobKind { TRAINING, INFERENCE };

struct JobSpec {
  std::string name;
  JobKind kind = JobKind::TRAINING;
  int gpus = 0;                    ///< training: GPUs it runs on; inference: the most it may hold
  double step_time_s = 0;          ///< measured; with `model`, 0 until derived (World, dcsim step); 0
                                   ///< without either: no step (progress is continuous, no step metrics)
  double model_flops_per_step = 0; ///< measured, or derived from `model`; UNKNOWN_FLOPS (NaN) when neither
  double tokens_per_step = 0;      ///< 0: unknown; derived from `model`
  /// Measured jobs: share of the healthy step spent in exposed scale-out communication; when fabric
  /// faults leave the job's slowest GPU a fraction f of its bandwidth, the step becomes
  /// step · (1 + scaleout_comm_frac · (1/f − 1)). Model jobs derive this from the step model instead.
  double scaleout_comm_frac = 0;
  /// Measured jobs: share of the healthy step in exposed NVLink communication (a degraded NVLink
  /// domain stretches it by 1/nvlink share).
  double nvlink_comm_frac = 0;
  // Scheduling (issue 6).
  int priority = 0;        ///< higher runs first and may preempt lower
  double arrival_h = 0;    ///< submitted at
  double work_h = 0;       ///< hours of work at full size; 0: runs until the end
  /// Training target: tokens to retain; 0: none. The World sets work_h from it once the healthy step
  /// time is known: work_h = target_tokens ÷ tokens_per_step × step_time_s ÷ 3600.
  double target_tokens = 0;
  double deadline_h = 0;    ///< the work is due by then (from the start of the run); 0: no deadline
  double min_gpus_frac = 1; ///< elastic jobs (< 1) may shrink to this share of their GPUs
  // Inference services (kind inference): capacity and demand (see inference_service.hpp).
  double tokens_per_s_per_gpu = 0;
  /// Served model and instance (kind inference): tokens_per_s_per_gpu is derived from its operating curve
  /// once the hardware is known (scenario decoding), and failures take whole instances out.
  std::optional<serving::ServingSpec> serving;
  double demand_tokens_per_s = 0;
  double demand_swing_frac = 0;
  double demand_peak_hour = 14;
  double demand_step_h = 1;
  double move_s = 300;
  bool sunk = true;
  /// Demand as (time_h, tokens/s) points, time increasing, each value holding until the next (the first
  /// also before it); empty: the daily profile above. Given inline, or read by the tools from
  /// demand_trace_file (CSV header time_h,demand_tokens_per_s).
  std::vector<std::pair<double, double>> demand_trace;
  std::string demand_trace_file;
  bool has_demand_trace() const { return !demand_trace.empty() || !demand_trace_file.empty(); }
  std::optional<ModelJobSpec> model; ///< set: the step time is derived from the model
  CheckpointSpec checkpoint;
  RecoverySpec recovery; ///< training: how it recovers from failures (recovery/registry.cpp)
};

const sim::KeyTable& job_keys();
const sim::KeyTable& checkpoint_keys();

std::vector<JobSpec> decode_jobs(const sim::Node& scenario);
/// Checks of a demand trace point (empty: fine), shared with the tools that read demand_trace_file.
std::string check_demand_time(double previous_time_h, double time_h);
std::string check_demand_value(double tokens_per_s);

} // namespace dcsim::workload
