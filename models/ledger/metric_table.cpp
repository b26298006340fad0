#include "models/ledger/metric_table.hpp"

#include "models/workload/training_job.hpp"

#include <unordered_map>

namespace dcsim::ledger {

namespace {

using S = MetricScope;
using B = Better;

constexpr const char* JOB_STATE_FAMILY = "ledger_<job state>_gpu_h";
constexpr const char* SERVICE_STATE_FAMILY = "ledger_<service state>_gpu_h";
constexpr const char* CLUSTER_STATE_FAMILY = "ledger_<cluster-only state>_gpu_h";
constexpr const char* JOB_COST_FAMILY = "cost_in_<job state>_usd";
constexpr const char* SERVICE_COST_FAMILY = "cost_in_<service state>_usd";
constexpr const char* CLUSTER_COST_FAMILY = "cost_in_<cluster-only state>_usd";

struct StateDef {
  const char* state;
  Better better;
  const char* meaning;
  bool on_terminal = false;
};

// One entry per job ledger state (docs/architecture.md); the switch has no default so that -Wswitch names a new
// state here. Productive time is the gain; every other state is a loss.
StateDef job_state(workload::JobTime state) {
  using workload::JobTime;
  switch (state) {
  case JobTime::PRODUCTIVE:
    return {"productive", B::HIGHER, "GPU-hours of steps whose progress was kept", true};
  case JobTime::CHECKPOINT:
    return {"checkpoint", B::LOWER, "GPU-hours spent in blocking checkpoint writes", true};
  case JobTime::REWORK:
    return {"rework", B::LOWER, "GPU-hours of steps later lost to a failure (since the last completed checkpoint)", true};
  case JobTime::DETECTION:
    return {"detection", B::LOWER, "GPU-hours between a failure and its detection", true};
  case JobTime::RESTART:
    return {"restart", B::LOWER, "GPU-hours of restarts: rescheduling, initialisation, checkpoint load", true};
  case JobTime::WAITING:
    return {"waiting", B::LOWER, "GPU-hours a job held while it lacked healthy capacity to restart", true};
  case JobTime::DEGRADED:
    return {"degraded", B::LOWER,
            "GPU-hours of extra step time over the healthy step (stragglers, throttling, power caps, lost "
            "fabric bandwidth)"};
  case JobTime::MAINTENANCE:
    return {"maintenance", B::LOWER, "GPU-hours of planned stops and holds (drains, grid events)"};
  case JobTime::REDUCED_BATCH:
    return {"reduced_batch", B::LOWER,
            "GPU-hours of a fault-tolerant (ft_dp) job's replica groups out while the others trained on a "
            "smaller global batch (their share of the job's GPU-time)"};
  case JobTime::COUNT:
    break;
  }
  return {"?", B::NONE, "?"};
}

// An inference service's ledger states (replica_result.hpp: service_ledger_states()).
constexpr StateDef SERVICE_STATES[] = {
    {"serving", B::NONE, "GPU-hours an inference service's GPUs were serving"},
    {"moving", B::LOWER, "GPU-hours an inference service held GPUs being moved in (not serving yet)"},
    {"down", B::LOWER, "GPU-hours an inference service held failed GPUs"},
};

// Cluster-only GPU-time categories (replica_result.hpp: CLUSTER_ONLY_STATES).
constexpr StateDef CLUSTER_STATES[] = {
    {"inference", B::NONE, "GPU-hours held by inference services (their serving, moving and down GPU-hours)"},
    {"idle", B::NONE, "GPU-hours of healthy GPUs that no job or service held"},
    {"repair", B::LOWER, "GPU-hours of unallocated GPUs down in repair or drained", true},
    {"spare", B::NONE, "GPU-hours of healthy GPUs held back as spares (in a job's domain or in the spare pool)"},
};

void add_states(std::vector<MetricDef>& t, const StateDef* begin, const StateDef* end, MetricScope scope,
                const char* family) {
  for (const StateDef* s = begin; s != end; ++s)
    t.push_back({"ledger_" + std::string(s->state) + "_gpu_h", "GPU-h", scope, s->better, s->meaning, family,
                 s->on_terminal});
}

// GPU-hours of a state priced at its entity's cost per GPU-hour: a family per ledger family.
void add_state_costs(std::vector<MetricDef>& t, const StateDef* begin, const StateDef* end, MetricScope scope,
                     const char* family) {
  for (const StateDef* s = begin; s != end; ++s)
    t.push_back({"cost_in_" + std::string(s->state) + "_usd", "USD", scope, s->better,
                 "Cost of the GPU-hours in state " + std::string(s->state) + " (its GPU-hours x cost_per_gpu_h_usd)",
                 family});
}

// Cost metrics (models/cost/run_cost.hpp states the equations): emitted only when the scenario has a
// /cost block, so they are empty columns of replicas.csv otherwise.
void add_cost_metrics(std::vector<MetricDef>& t) {
  const std::vector<MetricDef> cost = {
      {"capex_usd", "USD", S::CLUSTER, B::NONE, "Purchase price of the priced bill of materials (dcsim cost)", {}},
      {"cost_capex_usd", "USD", S::ALL, B::LOWER,
       "Capex depreciated straight-line over the run (cluster; jobs and services: by GPU-hours held)", {}},
      {"cost_financing_usd", "USD", S::ALL, B::LOWER,
       "Interest on the capex over the run: capex x (capital recovery factor - 1/depreciation_years) (jobs and "
       "services: by GPU-hours held)", {}},
      {"cost_energy_usd", "USD", S::ALL, B::LOWER, "Electricity: IT energy x pue x electricity_usd_per_mwh", {}},
      {"cost_facility_usd", "USD", S::ALL, B::LOWER,
       "Facility cost per MW-year of IT capacity over the run (jobs and services: by GPU-hours held)", {}},
      {"cost_crews_usd", "USD", S::ALL, B::LOWER,
       "Staffed repair crews over the run (jobs and services: by GPU-hours held)", {}},
      {"cost_spares_usd", "USD", S::ALL, B::LOWER,
       "Spare capacity charged to the GPUs held (in-rack spares, spare racks: fixed share x (GPUs ÷ usable GPUs - 1)); "
       "cluster: the spare GPUs' share of its fixed cost, not added to its total", {}},
      {"cost_idle_usd", "USD", S::ALL, B::LOWER,
       "Idle GPUs of the NVLink domains a job occupies, charged to it; cluster: the idle GPU-time's share of its "
       "fixed cost, not added to its total", {}},
      {"cost_opex_usd", "USD", S::ALL, B::LOWER, "Energy, facility and crews over the run", {}},
      {"cost_total_usd", "USD", S::ALL, B::LOWER,
       "Capex, financing and opex of the run (jobs and services: plus their spares and idle lines)", {}, true},
      {"cost_rent_usd", "USD", S::ALL, B::NONE,
       "Renting the GPU-hours held instead of building: rent_usd_per_gpu_h x GPU-hours held (empty without a "
       "price)", {}},
      {"rent_over_build_frac", "fraction", S::ALL, B::NONE,
       "cost_rent_usd over cost_total_usd (above 1: building is cheaper)", {}},
      {"cost_per_gpu_h_usd", "USD/GPU-h", S::ALL, B::LOWER,
       "Total cost over the GPU-hours held (cluster: all GPUs x duration)", {}},
      {"cost_per_productive_gpu_h_usd", "USD/GPU-h", S::JOB_AND_CLUSTER, B::LOWER,
       "Total cost over productive GPU-hours", {}, true},
      {"cost_per_mtok_usd", "USD/Mtoken", S::JOB_AND_CLUSTER, B::LOWER,
       "Total cost per million retained training tokens (cluster: over the tokens of jobs that declare them)", {},
       true},
      {"cost_to_train_usd", "USD", S::JOB, B::LOWER,
       "A job's total cost once its work (work_h or target_tokens) is done, failures and recovery included "
       "(undefined when not done)",
       {}, true},
      {"cost_per_mtok_served_usd", "USD/Mtoken", S::ALL, B::LOWER,
       "Total cost per million served inference tokens (services and cluster; empty on jobs)", {}},
      {"input_cost_per_mtok_usd", "USD/Mtoken", S::SERVICE, B::LOWER,
       "A modelled service's cost per million input tokens: its total cost times the prefill share of "
       "instance time, over input tokens served", {}},
      {"output_cost_per_mtok_usd", "USD/Mtoken", S::SERVICE, B::LOWER,
       "A modelled service's cost per million output tokens: its total cost times the decode share of "
       "instance time, over output tokens served", {}, true},
  };
  t.insert(t.end(), cost.begin(), cost.end());
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s) {
    const StateDef d = job_state(static_cast<workload::JobTime>(s));
    add_state_costs(t, &d, &d + 1, S::JOB_AND_CLUSTER, JOB_COST_FAMILY);
  }
  add_state_costs(t, std::begin(SERVICE_STATES), std::end(SERVICE_STATES), S::SERVICE, SERVICE_COST_FAMILY);
  add_state_costs(t, std::begin(CLUSTER_STATES), std::end(CLUSTER_STATES), S::CLUSTER, CLUSTER_COST_FAMILY);
}

// flat table: the job metrics, one entry per metric.
std::vector<MetricDef> job_metrics() {
  return {
      // Training jobs (and, where it makes sense, the cluster): replica_result.hpp gives the equations.
      {"goodput_frac", "fraction", S::JOB_AND_CLUSTER, B::HIGHER,
       "Productive GPU-time over the GPU-time held (job; = ETTR), or over all GPUs x duration (cluster)", {}, true},
      {"mfu_frac", "fraction", S::JOB, B::HIGHER,
       "Model FLOPs per step over (healthy step time x GPUs x peak FLOP/s at the job's precision)", {}, true},
      {"effective_mfu_frac", "fraction", S::JOB_AND_CLUSTER, B::HIGHER,
       "Retained model FLOPs over the peak FLOPs of the wall time (= mfu_frac x goodput_frac for a job)", {}, true},
      {"step_time_s", "s", S::JOB, B::LOWER, "Healthy step time of the job at full size", {}},
      {"tokens_per_s", "tokens/s", S::JOB, B::HIGHER, "Tokens per step over the healthy step time while training",
       {}},
      {"effective_tokens_per_s", "tokens/s", S::JOB, B::HIGHER,
       "Retained tokens over wall time (= tokens_per_s x goodput_frac)", {}},
      {"interruptions", "count", S::JOB, B::LOWER,
       "Unplanned interruptions of the job by failures (= interruptions_training + interruptions_recovery)", {},
       true},
      {"interruptions_training", "count", S::JOB, B::LOWER,
       "Unplanned interruptions that struck while the job trained (ran, wrote a checkpoint or stalled)", {}},
      {"interruptions_recovery", "count", S::JOB, B::LOWER,
       "Unplanned interruptions that struck while the job restarted (failures during detection or waiting "
       "interrupt nothing: they join the recovery under way)",
       {}},
      {"interruptions_planned", "count", S::JOB, B::NONE,
       "Planned stops of the job (maintenance, drains, grid events), taken at a checkpoint", {}, true},
      {"group_drops", "count", S::JOB, B::LOWER,
       "Failures that dropped replica groups of a fault-tolerant (ft_dp) job instead of interrupting it", {}},
      {"job_mttf_h", "h", S::JOB, B::HIGHER,
       "Wall time over unplanned interruptions (undefined without interruptions)", {}, true},
      {"expected_job_mtbf_h", "h", S::JOB, B::NONE,
       "Expected time between failures of the job's initial GPUs from the failure rates (what \"auto\" "
       "checkpointing uses)",
       {}},
      {"checkpoint_interval_s", "s", S::JOB, B::NONE,
       "Compute between checkpoints as run (given, or Daly's optimum, rounded to whole steps)", {}, true},
      {"checkpoints", "count", S::JOB, B::NONE, "Completed checkpoint writes (less those lost in fallbacks)", {}},
      {"checkpoint_write_s", "s", S::JOB, B::LOWER,
       "Time one checkpoint blocks training: write_s, or from the storage tiers (asynchronous: the snapshot only)",
       {}},
      {"checkpoint_durable_s", "s", S::JOB, B::LOWER,
       "From a checkpoint's start until its copy is in the last storage tier (undefined without tiers); "
       "asynchronous: the mean over the drains played as flows", {}},
      {"checkpoint_durable_max_s", "s", S::JOB, B::LOWER,
       "Asynchronous checkpoints: the longest time until a copy was in the last tier (flows; undefined "
       "otherwise)", {}},
      {"checkpoint_size_gb", "GB", S::JOB, B::NONE,
       "Size of one checkpoint: size_gb, or the model's parameters x 14 bytes (undefined without tiers)", {}},
      {"checkpoint_fallbacks", "count", S::JOB, B::LOWER,
       "Failures that struck before the last checkpoint reached a tier surviving them: the job fell back to "
       "the one before", {}},
      {"checkpoint_drains_skipped", "count", S::JOB, B::LOWER,
       "Asynchronous snapshots never drained: a newer one replaced them while the previous drain was in "
       "flight (storage too slow for the interval)", {}},
      {"restart_reschedule_gpu_h", "GPU-h", S::JOB, B::LOWER,
       "Restart time spent rescheduling (requeue, host selection, spare swap-in, health checks), with "
       "restart_s \"auto\" (undefined otherwise)", {}},
      {"restart_init_gpu_h", "GPU-h", S::JOB, B::LOWER,
       "Restart time spent initialising (processes, communicators), with restart_s \"auto\"", {}},
      {"restart_load_gpu_h", "GPU-h", S::JOB, B::LOWER,
       "Restart time spent loading the checkpoint from its nearest surviving tier, with restart_s \"auto\"", {}},
      {"restart_load_s", "s", S::JOB, B::LOWER,
       "Mean time a restart spent reading the checkpoint back, played as flows over storage (restart_s "
       "\"auto\"; undefined when no load ran)", {}},
      {"queue_h", "h", S::JOB, B::LOWER, "Time the job was queued without GPUs", {}, true},
      {"span_leaves", "count", S::JOB, B::NONE,
       "Leaf switches (per plane) the job's GPUs attach to, the largest over its placements (undefined without "
       "a fabric; models/sched/job_span.hpp)", {}},
      {"span_pods", "count", S::JOB, B::NONE,
       "Pods (three tiers; 1 with two) its leaves are in, the largest over its placements (undefined without a "
       "fabric)", {}},
      {"span_planes", "count", S::JOB, B::NONE,
       "Fabric planes the job's GPUs have ports on (every plane: each GPU is cabled to all; undefined without a "
       "fabric)", {}},
      {"step_alone_s", "s", S::JOB, B::LOWER,
       "Its step time alone on the fabric (every shared-fabric factor 1, its other state as it was), "
       "time-weighted over its training time (undefined when it never trained; models/workload/step_record.hpp)", {}},
      {"step_shared_s", "s", S::JOB, B::LOWER,
       "Its step time as shared with other jobs' collectives and converged storage traffic "
       "(fabric/shared_fabric.hpp), time-weighted over its training time", {}},
      {"fabric_slowdown_frac", "fraction", S::JOB, B::LOWER,
       "step_shared_s / step_alone_s - 1: how much sharing the fabric lengthened its step (0 alone)", {}},
      {"exposed_comm_frac", "fraction", S::JOB, B::NONE,
       "Share of its shared step that is exposed communication (tp + pp + dp + cp + ep of the step model; "
       "measured jobs: scale-out and NVLink shares), time-weighted", {}},
      {"completion_h", "h", S::JOB, B::LOWER,
       "When a job with work_h finished, from the start of the run (undefined when not done)", {}, true},
      {"deadline_met_frac", "fraction", S::JOB, B::HIGHER,
       "1 when the job's work was done by its deadline_h, else 0 (undefined without a deadline); the mean "
       "over replicas is the probability of meeting it",
       {}, true},
  };
}

std::vector<MetricDef> energy_and_service_metrics() {
  return {
      {"energy_kwh", "kWh", S::JOB, B::NONE,
       "Energy of the GPUs the job held, with their share of rack base power (more work costs more: per "
       "token or per useful GPU-hour decides)",
       {}},
      {"energy_per_token_j", "J/token", S::JOB_AND_CLUSTER, B::LOWER,
       "Energy over retained tokens (cluster: facility IT energy over the tokens of jobs that declare them)", {}},
      {"energy_per_useful_gpu_h_kwh", "kWh/GPU-h", S::JOB_AND_CLUSTER, B::LOWER,
       "Energy over productive GPU-hours", {}},
      // Inference services (models/workload/inference_service.hpp).
      {"served_frac", "fraction", S::SERVICE, B::HIGHER, "Served tokens over demanded tokens", {}, true},
      {"demand_tokens_per_s", "tokens/s", S::SERVICE, B::NONE, "Demanded tokens over the run's duration", {}},
      {"served_tokens_per_s", "tokens/s", S::SERVICE, B::HIGHER, "Served tokens over the run's duration", {}, true},
      {"moves", "count", S::SERVICE, B::NONE, "Times the service took NVLink domains (SUNK moves)", {}, true},
      // Services described by a model (/jobs/*/serving; empty otherwise): models/serving/service_timeline.hpp.
      {"slo_attainment_frac", "fraction", S::SERVICE, B::HIGHER,
       "Requests meeting both the TTFT and the TPOT SLO over requests demanded (shed requests miss)", {}, true},
      {"goodput_req_per_s", "requests/s", S::SERVICE, B::HIGHER,
       "Requests meeting both SLOs over the run's duration (DistServe's goodput)", {}, true},
      {"ttft_p50_s", "s", S::SERVICE, B::LOWER, "Median time to first token of served requests", {}},
      {"ttft_p99_s", "s", S::SERVICE, B::LOWER, "99th percentile time to first token of served requests", {}, true},
      {"tpot_p50_s", "s", S::SERVICE, B::LOWER, "Median time per output token of served requests", {}},
      {"tpot_p99_s", "s", S::SERVICE, B::LOWER, "99th percentile time per output token of served requests", {},
       true},
      {"retried_requests", "count", S::SERVICE, B::LOWER,
       "Requests whose KV cache a failure lost, prefilled again (request-level windows)", {}},
      {"serving_windows", "count", S::SERVICE, B::NONE,
       "Request-level windows played (after failures, at demand peaks)", {}},
      {"unused_gpu_h", "GPU-h", S::SERVICE, B::NONE,
       "Of the serving GPU-hours, those of a domain's GPUs forming no whole instance", {}},
      {"energy_per_output_token_j", "J/token", S::SERVICE, B::LOWER,
       "Energy of the service's GPUs (with their share of rack base power) over served output tokens", {}, true},
      {"output_tokens_per_s_per_mw", "tokens/s/MW", S::SERVICE, B::HIGHER,
       "Served output tokens per second per MW of the service's mean IT power", {}},
  };
}

std::vector<MetricDef> cluster_metrics() {
  return {
      {"failures", "count", S::CLUSTER, B::LOWER, "Failures of every mode (hardware, fabric, cooling)", {}, true},
      {"preemptions", "count", S::CLUSTER, B::LOWER, "Training jobs preempted by the scheduler", {}, true},
      {"cold_spare_activations", "count", S::CLUSTER, B::NONE,
       "Cold spare domains brought in (each joined the warm pool cold_swap_h after no warm or idle domain was left)",
       {}},
      {"domain_swaps", "count", S::CLUSTER, B::NONE,
       "Times a job moved off an NVLink domain (rack or server) onto a spare or idle one", {}},
      {"failures_discarded", "count", S::CLUSTER, B::NONE,
       "Strikes discarded because every holder of the unit's GPUs was recovering (/failures/clock "
       "paused_during_recovery; 0 otherwise)",
       {}},
  };
}

std::vector<MetricDef> facility_metrics() {
  return {
      // Energy, cooling and power (computed from what models/facility/facility_power.cpp's finish() records).
      {"energy_mwh", "MWh", S::CLUSTER, B::NONE, "Facility IT energy over the run", {}},
      {"mean_power_kw", "kW", S::CLUSTER, B::NONE, "Facility IT energy over the run's duration", {}},
      {"peak_power_kw", "kW", S::CLUSTER, B::LOWER, "Highest facility IT power", {}},
      {"cooling_isolated_gpu_h", "GPU-h", S::CLUSTER, B::LOWER,
       "GPU-hours on racks the cooling system had off: isolated by leaks or coolant work, or shut down "
       "(undefined without cooling)",
       {}},
      {"throttled_gpu_h", "GPU-h", S::CLUSTER, B::LOWER,
       "GPU-hours of training GPUs on thermally throttled racks (undefined without cooling)", {}},
      {"power_capped_gpu_h", "GPU-h", S::CLUSTER, B::LOWER,
       "Training GPU-hours under a power cap (undefined without a power budget or grid events)", {}},
  };
}

/// The table, in replicas.csv column order: job metrics and job states, energy and services, service
/// states, cluster counts and cluster-only states, facility, costs.
std::vector<MetricDef> build_table() {
  std::vector<MetricDef> t = job_metrics();
  auto append = [&t](const std::vector<MetricDef>& more) { t.insert(t.end(), more.begin(), more.end()); };
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s) {
    const StateDef d = job_state(static_cast<workload::JobTime>(s));
    add_states(t, &d, &d + 1, S::JOB_AND_CLUSTER, JOB_STATE_FAMILY);
  }
  append(energy_and_service_metrics());
  add_states(t, std::begin(SERVICE_STATES), std::end(SERVICE_STATES), S::SERVICE, SERVICE_STATE_FAMILY);
  append(cluster_metrics());
  add_states(t, std::begin(CLUSTER_STATES), std::end(CLUSTER_STATES), S::CLUSTER, CLUSTER_STATE_FAMILY);
  append(facility_metrics());
  add_cost_metrics(t);
  return t;
}

} // namespace

const std::vector<MetricDef>& metric_table() {
  static const std::vector<MetricDef> table = build_table();
  return table;
}

const MetricDef* find_metric(std::string_view name) {
  static const std::unordered_map<std::string_view, const MetricDef*> index = [] {
    std::unordered_map<std::string_view, const MetricDef*> m;
    for (const auto& d : metric_table())
      m.emplace(d.name, &d);
    return m;
  }();
  const auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

std::optional<Better> metric_direction(std::string_view metric) {
  if (const MetricDef* d = find_metric(metric)) return d->better;
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

std::string_view scope_name(MetricScope scope) {
  switch (scope) {
  case MetricScope::JOB:
    return "job";
  case MetricScope::CLUSTER:
    return "cluster";
  case MetricScope::SERVICE:
    return "service";
  case MetricScope::JOB_AND_CLUSTER:
    return "job+cluster";
  case MetricScope::ALL:
    return "all";
  }
  return "?";
}

bool scope_covers(MetricScope scope, MetricScope row) {
  if (scope == row || scope == MetricScope::ALL) return true;
  return scope == MetricScope::JOB_AND_CLUSTER && (row == MetricScope::JOB || row == MetricScope::CLUSTER);
}

} // namespace dcsim::ledger
