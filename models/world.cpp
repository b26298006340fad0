#include "models/world.hpp"

#include "models/failure/failure_domain.hpp"
#include "models/replica.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/ledger/cluster_ledger.hpp"
#include "models/ops/mission_control.hpp"
#include "models/sched/allocator.hpp"
#include "models/sched/scheduler.hpp"
#include "models/workload/checkpoint_interval.hpp"
#include "models/fabric/comm_model.hpp"
#include "models/workload/inference_service.hpp"
#include "models/workload/step_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include <malloc.h>

namespace dcsim {

namespace {

/// FabricCommModel's placement key of a set of GPUs: the multiset of their counts per leaf.
std::uint64_t placement_key(const fabric::ClosPlan& plan, const std::vector<int>& gpus) {
  std::vector<int> per_leaf(static_cast<std::size_t>(plan.leaves()), 0);
  for (int g : gpus)
    ++per_leaf[static_cast<std::size_t>(plan.leaf_of(g))];
  std::uint64_t key = 0;
  for (int count : per_leaf)
    key += fabric::FabricCommModel::leaf_count_key(count);
  return key;
}

} // namespace

World::World(const Scenario& scenario) : scenario_(scenario), layout_(scenario_.hardware, scenario_.cluster) {
  // Checkpoint plans first: the storage network joins the platform before it is sealed.
  for (const auto& spec : scenario_.jobs) {
    checkpoint_plans_.emplace_back();
    if (spec.kind != workload::JobKind::INFERENCE && !spec.checkpoint.tiers.empty() && scenario_.storage)
      checkpoint_plans_.back() = storage::plan_checkpoint(spec, storage::checkpoint_bytes(spec), *scenario_.storage,
                                                          scenario_.failures.modes, storage::job_racks(layout_, spec.gpus));
  }
  build_fabric_and_cost();
  // The failure domains as questions are asked of them (units, expected rates); replicas build their own.
  const auto domains = failure::make_failure_domains(
      scenario_.hardware, layout_, fabric_ ? &fabric_->state() : nullptr, scenario_.cooling ? &*scenario_.cooling : nullptr,
      scenario_.storage ? scenario_.storage->object_stores() : std::vector<std::string>{});
  for (const auto& mode : scenario_.failures.modes)
    mode_units_.push_back(static_cast<int>(domains.of(mode).units(mode)));
  derive_steps_without_fabric();

  // Each job's expected failure rate, from the GPUs it gets when placed alone on the healthy cluster
  // (placement is deterministic; the scheduler may later place it elsewhere, on GPUs of the same kind).
  std::map<int, std::vector<int>> alone_gpus; // job size -> its GPUs placed alone
  for (std::size_t j = 0; j < scenario_.jobs.size(); ++j) {
    auto& spec = scenario_.jobs[j];
    if (spec.kind == workload::JobKind::INFERENCE) { // not checkpointed: a placeholder keeps indices aligned
      job_rate_per_h_.push_back(0);
      timing_.push_back(workload::JobTiming{.step = 1, .interval = 1});
      continue;
    }
    auto alone = alone_gpus.find(spec.gpus); // placement is deterministic: one per job size
    if (alone == alone_gpus.end()) alone = alone_gpus.emplace(spec.gpus, placed_alone(spec)).first;
    const std::vector<int>& gpus = alone->second;
    if (spec.model && fabric_) derive_step_on_fabric(j, gpus);
    if (spec.target_tokens > 0) // the training target as work: full-size steps that retain its tokens (at
      // most the longest run, as the work_h key: a target beyond it is never reached, and ticks stay in range)
      spec.work_h = std::min(spec.target_tokens / spec.tokens_per_step * spec.step_time_s / sim::S_PER_H,
                             sim::MAX_DURATION_H);
    const double rate_per_h = failure::job_failure_rate_per_h(scenario_.failures.modes, layout_, domains, gpus);
    job_rate_per_h_.push_back(rate_per_h);
    timing_.push_back(timing_of(spec, rate_per_h, checkpoint_plans_[j]));
  }
}

void World::build_fabric_and_cost() {
  // SimGrid plays the fabric's flows and the storage's: with neither, no platform.
  const bool storage = std::any_of(checkpoint_plans_.begin(), checkpoint_plans_.end(), [](const auto& p) { return p.has_value(); });
  auto add_storage = [this](sim::Platform& platform) {
    storage_ = std::make_unique<storage::StorageNetwork>(platform, checkpoint_plans_);
  };
  if (scenario_.fabric) {
    plan_ = std::make_unique<fabric::ClosPlan>(*scenario_.fabric, layout_);
    if (!plan_->ok()) throw std::logic_error("World: fabric design has problems (the scenario checks should have said so)");
    graph_ = std::make_unique<fabric::ClosGraph>(*plan_);
    fabric_ = std::make_unique<fabric::FabricPlatform>(*graph_, scenario_.name,
                                                       storage ? std::function<void(sim::Platform&)>(add_storage) : nullptr);
  } else if (storage) {
    own_platform_ = std::make_unique<sim::Platform>(scenario_.name);
    add_storage(*own_platform_);
    own_platform_->seal();
  }
  if (scenario_.cost) { // the bill counts the fabric as `dcsim topology` does (ClosGraph::counts)
    const std::optional<fabric::FabricSizing> counts =
        graph_ ? std::optional<fabric::FabricSizing>(graph_->counts()) : std::nullopt;
    cost_ = std::make_unique<cost::CostModel>(cost::make_cost_model(cost_plant(scenario_), *scenario_.cost, counts ? &*counts : nullptr));
  }
}

void World::derive_steps_without_fabric() {
  // Jobs described by a model: the healthy step time, model FLOPs and tokens per step come from the
  // step-time model; without a fabric its scale-out network is the alpha-beta model (with a fabric,
  // derive_step_on_fabric, once the job's GPUs are known).
  for (auto& job : scenario_.jobs) {
    healthy_steps_.emplace_back();
    fabric_comms_.emplace_back();
    if (job.model && !fabric_) {
      const workload::StepBreakdown step = workload::healthy_step(*job.model, scenario_.hardware, scale_out_gbps(scenario_));
      job.step_time_s = step.step_time_s;
      job.model_flops_per_step = step.model_flops_per_step;
      job.tokens_per_step = step.tokens_per_step;
      healthy_steps_.back() = step;
    }
    healthy_step_s_.push_back(job.step_time_s);
  }
}

std::vector<int> World::placed_alone(const workload::JobSpec& spec) const {
  failure::GpuHealth health(layout_.gpus());
  sched::Allocator alloc(layout_, health, scenario_.operations.spare_domains(layout_.kind()),
                         scenario_.operations.cold_domains(layout_.kind()));
  if (!alloc.place(0, spec.gpus))
    throw std::logic_error(fmt::format("job {} does not fit (the scenario checks should have said so)", spec.name));
  return alloc.job_gpus(0);
}

void World::derive_step_on_fabric(std::size_t j, const std::vector<int>& gpus) {
  // The healthy step with the job's collectives played on the fabric over these GPUs (probed in a
  // child process: this one's SimGrid clock stays at 0 for later probes, and replicas inherit the cache).
  auto& spec = scenario_.jobs[j];
  auto comm = std::make_unique<fabric::FabricCommModel>(
      *fabric_, workload::alpha_beta_params(scenario_.hardware, scale_out_gbps(scenario_)),
      scenario_.hardware.gpu.nic_efficiency_frac, [gpus] { return gpus; });
  comm->set_placement_key(placement_key(*plan_, gpus));
  workload::StepModel model(*spec.model, scenario_.hardware, *comm);
  comm->expect(model.groups());
  const workload::StepBreakdown step = model.compute();
  spec.step_time_s = step.step_time_s;
  spec.model_flops_per_step = step.model_flops_per_step;
  spec.tokens_per_step = step.tokens_per_step;
  healthy_steps_[j] = step;
  healthy_step_s_[j] = step.step_time_s;
  fabric_comms_[j] = std::move(comm);
}

workload::JobTiming World::timing_of(const workload::JobSpec& spec, double rate_per_h,
                                     const std::optional<storage::CheckpointPlan>& plan) const {
  workload::JobTiming t;
  t.step = std::max<sim::Tick>(1, sim::to_ticks(spec.step_time_s));
  const ops::OperationsSpec& ops = scenario_.operations;
  t.restart = sim::to_ticks(ops.restart_s);
  t.planned_every = sim::hours_to_ticks(ops.planned_interval_h);
  t.planned_downtime = sim::to_ticks(ops.planned_downtime_s);
  double write_s = spec.checkpoint.write_s;
  double drain_s = 0; // asynchronous: from the snapshot's end until the copy is in the last tier
  if (plan) {
    if (!spec.checkpoint.write_given) write_s = plan->write_s;
    drain_s = plan->durable_s - plan->write_s;
    t.final_write = sim::to_ticks(write_s + drain_s);
    for (std::size_t m = 0; m < plan->load_s.size(); ++m) {
      t.loss_window.push_back(sim::to_ticks(plan->loss_window_s[m]));
      t.load.push_back(sim::to_ticks(plan->load_s[m]));
    }
    t.load_planned = sim::to_ticks(plan->load_planned_s);
  }
  if (ops.restart_auto) { // restart = reschedule + init(G) + load (the scenario checks give every job tiers)
    t.restart_parts = true;
    t.reschedule = sim::to_ticks(ops.reschedule_s);
    t.init = sim::to_ticks(ops.restart_init_s(spec.gpus));
    if (ops.standby_join_s >= 0) t.init_after_failure = sim::to_ticks(ops.standby_join_s);
    t.restart = t.reschedule + t.init;
  }
  t.write = sim::to_ticks(write_s);
  double interval_s = spec.checkpoint.interval_s;
  if (spec.checkpoint.auto_interval) {
    // Daly's interval for the blocking write; an asynchronous drain must end before the next snapshot.
    interval_s = rate_per_h > 0 ? workload::daly_interval_s(write_s, sim::S_PER_H / rate_per_h)
                                : scenario_.duration_h * sim::S_PER_H; // no failures: no checkpoint is worth its cost
    interval_s = std::max(interval_s, drain_s - write_s);
  }
  const double steps = std::max(1.0, std::round(interval_s / sim::to_seconds(t.step)));
  t.interval = static_cast<sim::Tick>(steps) * t.step;
  return t;
}

World::~World() = default;

ledger::ReplicaResult World::run_replica(int replica, const std::function<void(double)>& progress) {
  if (ran_) throw std::logic_error("World::run_replica: one replica per process (a replica changes the fabric state and its platform)");
  ran_ = true;
  // A replica's large buffers (time series, event log, its sorted copy: MBs) come from the heap, whose
  // top grows in transparent huge pages, rather than from fresh mmaps faulted 4 KiB at a time (each
  // fault costs 10-25 us in a VM; ~1,500 of them per replica of bench case b). One replica per process.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  Replica r(*this, replica, progress);
  return r.run();
}

} // namespace dcsim
