// What one replica produces, and the metrics derived from it (docs/architecture.md).
//
//   goodput_frac (job)       = productive ÷ wall time
//   goodput_frac (cluster)   = productive GPU-time of all training jobs ÷ (GPUs × duration)
//   mfu_frac                 = model FLOPs per step ÷ (healthy step time × GPUs × peak FLOP/s); the peak is
//                              the job's precision's for model-derived jobs, hardware.gpu.peak_tflops otherwise
//   effective_mfu_frac       = retained model FLOPs ÷ (GPUs × peak × wall) = mfu_frac × goodput_frac
//   tokens_per_s             = tokens per step ÷ healthy step time (while training)
//   effective_tokens_per_s   = retained tokens ÷ wall time = tokens_per_s × goodput_frac
//   job_mttf_h               = wall time ÷ unplanned interruptions (undefined without interruptions)
//   interruptions            = interruptions_training + interruptions_recovery (struck while training,
//                              writing or stalled / while restarting; failures during detection or waiting
//                              join the recovery under way and interrupt nothing)
//   group_drops              = failures that dropped replica groups of an ft_dp job (not interruptions;
//                              models/workload/training_job.hpp)
//   ledger_<state>_gpu_h     = job GPUs × time in the state (cluster: summed, plus idle/repair/spare)
// Energy (models/facility/facility_power.hpp; power always accounted, models/power/spec.hpp):
//   energy_kwh (job)                 = ∫ power of the GPUs the job holds (+ their share of rack base power)
//   energy_mwh, mean_power_kw, peak_power_kw (cluster) = ∫ facility IT power, its mean and peak
//   energy_per_token_j               = energy ÷ retained tokens (tokens of productive steps; cluster: of
//                                      the jobs that declare tokens; undefined when none does)
//   energy_per_useful_gpu_h_kwh      = energy ÷ productive GPU-hours
// Cooling (cluster; undefined without /cooling): cooling_isolated_gpu_h (GPU-hours on racks the cooling
// system had off: isolated by leaks or coolant work, or shut down), throttled_gpu_h (GPU-hours of
// training GPUs on thermally throttled racks); power_capped_gpu_h (training GPU-hours under a power cap;
// undefined without a budget or grid events).
// Each metric (name, unit, scope, better direction, meaning) is declared once in metric_table.hpp.
// A replica's result travels from the child process that ran it to its parent as bytes (encode_replica /
// decode_replica: the one serialiser, used by dcsim run, sweep and the test harness alike; exact:
// numbers travel as their bytes).
#pragma once

#include "models/workload/training_job.hpp"
#include "sim/event_log.hpp"
#include "sim/units.hpp"

#include <array>
#include <limits>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dcsim::ledger {

/// GPU·µs a job charged to one (ledger state, cause) (models/workload/loss_cause.hpp, losses.hpp).
struct LossCell {
  int state = 0; ///< workload::JobTime
  int cause = 0; ///< < ReplicaResult::modes.size(): that failure cause; else a workload::Mechanism after them
  workload::GpuTicks gpu_us = 0;
};

struct JobOutcome {
  std::string name;
  int gpus = 0;                ///< GPUs asked (full size)
  sim::Tick wall = 0;          ///< time holding GPUs
  sim::Tick queued = 0;        ///< time queued without GPUs
  sim::Tick completed_at = -1; ///< when its work was done (-1: not done, or open-ended)
  double deadline_h = 0;       ///< when its work was due (0: no deadline)
  int reallocations = 0;       ///< resizes and releases (0: held its full size throughout)
  std::array<double, workload::JOB_TIME_STATES> gpu_h{}; ///< GPU-hours in each ledger state
  std::uint64_t interruptions = 0;
  std::uint64_t interruptions_recovery = 0; ///< of interruptions: struck while restarting
  std::uint64_t interruptions_planned = 0;
  std::uint64_t group_drops = 0; ///< ft_dp: failures that dropped replica groups (not interruptions)
  std::uint64_t checkpoints = 0;
  std::vector<std::uint64_t> failures_by_mode;
  std::vector<std::uint64_t> interruptions_by_mode;
  double step_time_s = 0;
  double checkpoint_interval_s = 0;
  double model_flops_per_step = 0;
  double tokens_per_step = 0;     ///< 0: unknown
  double expected_mtbf_h = 0;     ///< from the failure rates of the job's initial GPUs; inf without failures
  double peak_flops_per_gpu = 0;  ///< peak at the job's precision; 0: the replica's peak_flops_per_gpu
  double energy_j = 0;            ///< energy of the GPUs the job held
  // Checkpoints over storage tiers and restarts in parts (NaN: the job has no tiers / restart_s is a number).
  double checkpoint_write_s = 0;   ///< blocking time of one write
  double checkpoint_durable_s = 0; ///< from a write's start until the copy is in the last tier
  double checkpoint_size_gb = 0;
  std::uint64_t checkpoint_fallbacks = 0;
  std::array<double, workload::RESTART_PARTS> restart_part_gpu_h{}; ///< GPU-hours of restart in each part
  // Measured over storage flows (NaN: none played).
  double checkpoint_durable_max_s = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t checkpoint_drains_skipped = 0;
  double restart_load_s = std::numeric_limits<double>::quiet_NaN(); ///< mean load of a restart
  // Largest span over the job's placements (models/sched/job_span.hpp; NaN: no fabric, or never placed).
  double span_leaves = std::numeric_limits<double>::quiet_NaN();
  double span_pods = std::numeric_limits<double>::quiet_NaN();
  double span_planes = std::numeric_limits<double>::quiet_NaN();
  // Its step over its training time (models/workload/step_record.hpp; NaN: it never trained).
  double step_alone_s = std::numeric_limits<double>::quiet_NaN();  ///< alone on the fabric
  double step_shared_s = std::numeric_limits<double>::quiet_NaN(); ///< as shared with other traffic
  double fabric_slowdown_frac = std::numeric_limits<double>::quiet_NaN();
  double exposed_comm_frac = std::numeric_limits<double>::quiet_NaN(); ///< of the shared step
  /// Its GPU-time by (state, cause), the non-zero cells in state then cause order: per state they sum
  /// exactly to the state's GPU·µs (gpu_h is that sum converted once).
  std::vector<LossCell> losses;
};

struct ModeOutcome {
  std::string name;
  std::string domain; ///< failure domain (failure/spec.hpp: hardware, fabric, cooling, power, storage)
  std::uint64_t failures = 0;
  std::uint64_t repaired = 0;
  double time_to_repair_h = 0; ///< summed over repaired failures
};

using Sample = sim::Sample;

/// Unallocated cluster categories, in output order after the job states.
inline constexpr std::array<const char*, 4> CLUSTER_ONLY_STATES = {"inference", "idle", "repair", "spare"};

/// An inference service's replica (models/workload/inference_service.hpp). Metrics:
///   served_frac            = served tokens ÷ demanded tokens
///   demand_tokens_per_s    = demanded tokens ÷ duration;  served_tokens_per_s = served tokens ÷ duration
///   moves                  = times the service took domains (SUNK)
///   ledger_<serving|moving|down>_gpu_h = GPU-hours it held, by state (their sum: the cluster's
///                            ledger_inference_gpu_h)
/// A service described by a model (`serving`; NaN otherwise), its requests (models/serving/service_timeline.hpp):
///   slo_attainment_frac    = requests meeting both the TTFT and the TPOT SLO ÷ requests demanded
///   goodput_req_per_s      = requests meeting both SLOs ÷ duration (DistServe's goodput)
///   ttft_<p50|p99>_s, tpot_<p50|p99>_s = percentiles over served requests (fluid and played)
///   retried_requests       = requests whose KV cache a failure lost (played in windows)
///   serving_windows        = request-level windows played
///   unused_gpu_h           = of ledger_serving_gpu_h, GPU-hours of GPUs forming no whole instance
///   energy_per_output_token_j = energy of the service's GPUs ÷ served output tokens
///   output_tokens_per_s_per_mw = served output tokens/s ÷ the service's mean power (MW, IT)
struct ServiceOutcome {
  std::string name;
  int gpus = 0; ///< the most it may hold
  double demanded_tokens = 0;
  double served_tokens = 0;
  double serving_gpu_h = 0, moving_gpu_h = 0, down_gpu_h = 0;
  int moves = 0;
  double energy_j = 0;    ///< of the GPUs it held (and their share of rack base power)
  bool modelled = false;  ///< described by a model: the fields below are set
  int isl = 0, osl = 0;
  double requests_demanded = 0, requests_served = 0, requests_met = 0, retried_requests = 0;
  int windows = 0;
  double ttft_p50_s = 0, ttft_p99_s = 0, tpot_p50_s = 0, tpot_p99_s = 0;
  double prefill_time_frac = 0; ///< share of instance time in prefill at the SLO point (cost split)
  double unused_gpu_h = 0;
};

/// The fabric's link utilisation in one tier (models/fabric/link_utilisation.hpp): over the replica,
/// time-weighted (fabric_utilisation.csv; time_s: the replica's end), or over the tier's links from
/// time_s on (fabric_utilisation_series.csv).
struct TierUtilisationRow {
  std::string tier; ///< access, leaf_spine, spine_core
  double time_s = 0;
  double p50_frac = 0, p99_frac = 0, max_frac = 0, mean_frac = 0;
  int links = 0; ///< live links of the tier (at the end, for the time-weighted rows)
};

struct ReplicaResult {
  int replica = 0;
  int gpus = 0;
  sim::Tick duration = 0;
  double peak_flops_per_gpu = 0;
  std::vector<JobOutcome> jobs;
  std::vector<ServiceOutcome> services;
  std::array<double, 3> unallocated_gpu_h{}; ///< idle, repair, spare
  int preemptions = 0;                      ///< training jobs preempted by the scheduler
  int cold_spare_activations = 0;           ///< cold spare domains brought in (they joined the warm pool)
  int domain_swaps = 0;                     ///< a job moved off a domain onto a spare or idle one
  std::uint64_t failures_discarded = 0;     ///< strikes discarded by /failures/clock paused_during_recovery
  std::vector<double> rack_down_gpu_h;      ///< per rack: GPU-hours its GPUs were down (racks.csv)
  std::vector<std::uint64_t> rack_failures; ///< per rack: failures that struck GPUs of it
  std::vector<ModeOutcome> modes;
  std::vector<sim::EventRecord> events;
  std::vector<Sample> samples;
  double energy_j = 0;        ///< facility IT energy
  double peak_power_w = 0;
  double cooling_isolated_gpu_h = 0; ///< NaN without cooling
  double throttled_gpu_h = 0;        ///< NaN without cooling
  double power_capped_gpu_h = 0;     ///< NaN without a budget or grid events
  std::vector<TierUtilisationRow> fabric_utilisation;        ///< per tier (empty without a fabric)
  std::vector<TierUtilisationRow> fabric_utilisation_series; ///< per change of a tier's figures
};

using Metrics = std::vector<std::pair<std::string, double>>;

/// The metrics of one job, in output order.
Metrics job_metrics(const JobOutcome& job, double peak_flops_per_gpu);
/// The metrics of one inference service, in output order.
Metrics service_metrics(const ServiceOutcome& service, sim::Tick duration);
/// Names of a service's ledger states, in output order.
std::vector<std::string> service_ledger_states();
/// Cluster-wide metrics, in output order.
Metrics cluster_metrics(const ReplicaResult& result);
/// Names of the cluster ledger states in output order (job states, then inference, idle, repair, spare).
std::vector<std::string> cluster_ledger_states();
/// Cluster GPU-hours per state, in cluster_ledger_states() order.
std::vector<double> cluster_ledger_gpu_h(const ReplicaResult& result);
double job_state_gpu_h(const JobOutcome& job, workload::JobTime state);
/// Tokens of the job's productive steps (productive GPU-hours × 3600 ÷ GPUs ÷ step time × tokens per
/// step); NaN when the job declares no tokens per step.
double retained_tokens(const JobOutcome& job);

/// The serialiser between a replica's child and its parent (tools/dcsim/runner.hpp), for processes of
/// the same binary: numbers as their bytes, strings and vectors length-prefixed. Its field list
/// (visit_fields in replica_result.cpp) serves both directions: a new field needs one line there.
std::string encode_replica(const ReplicaResult& result);
/// Throws std::runtime_error on a truncated or overlong payload.
ReplicaResult decode_replica(std::string_view payload);

} // namespace dcsim::ledger
