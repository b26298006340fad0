// Replica results: the outcomes of its jobs and services, the cluster ledger's check, and the events in
// time order, assembled once at the end of a replica (models/replica.hpp; the equations of each outcome
// are in models/ledger/replica_result.hpp).
#include "models/replica.hpp"

#include "models/ledger/losses.hpp"
#include "models/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dcsim {

void Replica::check_conservation() const {
  // Exact (integer GPU·µs): failing one is a bug, never a property of the input.
  ledger::GpuTicks allocated = 0;
  for (int j = 0; j < workloads_.size(); ++j)
    allocated += workloads_[j].held_gpu_time();
  if (cluster_.gpu_ticks(sched::Category::ALLOCATED) != allocated ||
      cluster_.total() != static_cast<ledger::GpuTicks>(layout_->gpus()) * end_)
    throw std::logic_error("cluster ledger not conserved");
}

ledger::ServiceOutcome Replica::service_outcome(const workload::InferenceService& sv) const {
  ledger::ServiceOutcome o;
  o.name = sv.spec().name;
  o.gpus = sv.spec().gpus;
  o.demanded_tokens = sv.demanded_tokens();
  o.served_tokens = sv.served_tokens();
  o.serving_gpu_h = ledger::to_gpu_hours(sv.serving_gpu_time());
  o.moving_gpu_h = ledger::to_gpu_hours(sv.moving_gpu_time());
  o.down_gpu_h = ledger::to_gpu_hours(sv.down_gpu_time());
  o.moves = sv.moves();
  if (const auto* t = sv.timeline()) { // a service described by a model: its requests
    const serving::ServingTotals r = t->totals();
    o.modelled = true;
    o.isl = sv.spec().serving->isl;
    o.osl = sv.spec().serving->osl;
    o.requests_demanded = r.requests_demanded, o.requests_served = r.requests_served;
    o.requests_met = r.requests_met, o.retried_requests = r.retried_requests, o.windows = r.windows;
    o.ttft_p50_s = r.ttft_p50_s, o.ttft_p99_s = r.ttft_p99_s, o.tpot_p50_s = r.tpot_p50_s, o.tpot_p99_s = r.tpot_p99_s;
    o.prefill_time_frac = r.prefill_time_frac;
    o.unused_gpu_h = ledger::to_gpu_hours(sv.unused_gpu_time());
  }
  return o;
}

ledger::JobOutcome Replica::job_outcome(std::size_t j) const {
  const auto& job = *workloads_.training(static_cast<int>(j));
  const auto& timing = world_->job_timing()[j];
  ledger::JobOutcome o;
  o.name = job.spec().name;
  o.gpus = job.spec().gpus;
  o.wall = job.wall();
  o.queued = job.queued_time();
  o.completed_at = job.completed_at();
  o.deadline_h = job.spec().deadline_h;
  o.reallocations = job.reallocations();
  for (int st = 0; st < workload::JOB_TIME_STATES; ++st)
    o.gpu_h[static_cast<std::size_t>(st)] =
        ledger::to_gpu_hours(job.gpu_time()[static_cast<std::size_t>(st)]);
  o.interruptions = job.interruptions();
  o.interruptions_recovery = job.interruptions_recovery();
  o.interruptions_planned = job.interruptions_planned();
  o.group_drops = job.group_drops();
  o.checkpoints = job.checkpoints();
  o.checkpoint_fallbacks = job.checkpoint_fallbacks();
  o.checkpoint_write_s = sim::to_seconds(timing.write);
  constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
  const auto& plan = world_->checkpoint_plan(static_cast<int>(j));
  o.checkpoint_durable_s = plan ? sim::to_seconds(timing.final_write_or_write()) : NaN;
  if (plan && plan->async && storage_) { // measured: the snapshot, then its drain as flows
    const storage::StorageTraffic::Measured& m = storage_->measured(static_cast<int>(j));
    o.checkpoint_durable_s = m.drains > 0 ? sim::to_seconds(timing.write) + m.drain_s_sum / static_cast<double>(m.drains) : NaN;
    o.checkpoint_durable_max_s = m.drains > 0 ? sim::to_seconds(timing.write) + m.drain_s_max : NaN;
    o.checkpoint_drains_skipped = m.skipped;
  }
  if (plan && storage_) {
    const storage::StorageTraffic::Measured& m = storage_->measured(static_cast<int>(j));
    o.restart_load_s = m.loads > 0 ? m.load_s_sum / static_cast<double>(m.loads) : NaN;
  }
  o.checkpoint_size_gb = plan ? plan->size_bytes / storage::BYTES_PER_GB : NaN;
  for (int k = 0; k < workload::RESTART_PARTS; ++k)
    o.restart_part_gpu_h[static_cast<std::size_t>(k)] =
        timing.restart_parts ? ledger::to_gpu_hours(job.restart_part_time()[static_cast<std::size_t>(k)]) : NaN;
  o.failures_by_mode = job.failures_by_mode();
  o.interruptions_by_mode = job.interruptions_by_mode();
  o.losses = ledger::loss_cells(job);
  // A measured job without step_time_s has no step (its 1 µs tick is not one): its step metrics are NaN.
  o.step_time_s = job.spec().step_time_s > 0 ? sim::to_seconds(timing.step) : std::numeric_limits<double>::quiet_NaN();
  o.checkpoint_interval_s = sim::to_seconds(timing.interval);
  o.model_flops_per_step = job.spec().model_flops_per_step;
  o.tokens_per_step = job.spec().tokens_per_step;
  if (job.spec().model)
    o.peak_flops_per_gpu = s_->hardware.gpu.peak_tflops_at(job.spec().model->model.precision) * 1e12;
  const double rate_per_h = world_->job_failure_rate_per_h()[j];
  o.expected_mtbf_h = rate_per_h > 0 ? 1.0 / rate_per_h : std::numeric_limits<double>::infinity();
  if (const sched::JobSpan span = spans_->largest(static_cast<int>(j)); spans_->has_fabric() && span.planes > 0) {
    o.span_leaves = span.leaves;
    o.span_pods = span.pods;
    o.span_planes = span.planes;
  }
  const workload::StepRecord& step = paces_.step(static_cast<int>(j));
  o.step_alone_s = step.step_alone_s();
  o.step_shared_s = step.step_shared_s();
  o.fabric_slowdown_frac = step.fabric_slowdown_frac();
  o.exposed_comm_frac = step.exposed_comm_frac();
  return o;
}

void Replica::collect_results() {
  for (int j = 0; j < workloads_.size(); ++j) {
    if (const auto* sv = workloads_.service(j))
      result_.services.push_back(service_outcome(*sv));
    else
      result_.jobs.push_back(job_outcome(static_cast<std::size_t>(j)));
  }
  result_.unallocated_gpu_h = {ledger::to_gpu_hours(cluster_.gpu_ticks(sched::Category::IDLE)),
                               ledger::to_gpu_hours(cluster_.gpu_ticks(sched::Category::REPAIR)),
                               ledger::to_gpu_hours(cluster_.gpu_ticks(sched::Category::SPARE))};
  result_.preemptions = scheduler_.preemptions();
  result_.failures_discarded = injector_->discarded();
  result_.rack_down_gpu_h = rack_avail_.down_gpu_h(end_);
  result_.rack_failures = rack_avail_.failures();
  const auto& stats = mission_->stats(); // every mode, whatever its domain, then the extra causes
  for (std::size_t k = 0; k < stats.size(); ++k)
    result_.modes.push_back({k < static_cast<std::size_t>(modes_)
                                 ? s_->failures.modes[k].name
                                 : Facility::extra_cause_name(static_cast<int>(k) - modes_),
                             k < static_cast<std::size_t>(modes_)
                                 ? std::string(s_->failures.modes[k].domain.name())
                                 : Facility::extra_cause_domain(static_cast<int>(k) - modes_),
                             stats[k].failures, stats[k].repaired, sim::to_hours(stats[k].time_to_repair)});
  facility_->finish(end_, result_); // energy, cooling and power metrics
  if (auto* sharing = paces_.sharing()) { // the links' utilisation per tier, time-weighted to the end, and its changes
    sharing->record(sim::to_seconds(end_));
    auto row = [](double time_s, const fabric::TierUtilisation& u) {
      return ledger::TierUtilisationRow{std::string(fabric::link_tier_name(u.tier)), time_s, u.p50_frac, u.p99_frac,
                                        u.max_frac, u.mean_frac, u.links};
    };
    for (const auto& u : sharing->utilisation().summary())
      result_.fabric_utilisation.push_back(row(sim::to_seconds(end_), u));
    for (const auto& p : sharing->utilisation().points())
      result_.fabric_utilisation_series.push_back(row(p.time_s, p.at));
  }
}

void Replica::sort_events() {
  // Jobs log completed checkpoints when they close a cycle, after the fact: order the log by date
  // (stable: events of one date keep the order in which they were logged).
  result_.samples = log_.take_samples();
  result_.events = log_.take_in_time_order();
}

} // namespace dcsim
