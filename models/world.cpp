#include "models/world.hpp"

#include "models/facility.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/ledger/cluster_ledger.hpp"
#include "models/ops/mission_control.hpp"
#include "models/sched/allocator.hpp"
#include "models/sched/scheduler.hpp"
#include "models/workload/checkpoint_interval.hpp"
#include "models/workload/comm_model.hpp"
#include "models/workload/inference_service.hpp"
#include "models/workload/step_model.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>

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

double failure_rate_per_h(const failure::FailuresSpec& failures, const hardware::Layout& layout,
                          const std::vector<int>& gpus, const fabric::ClosPlan* plan,
                          const cooling::CoolingSpec* cooling) {
  double rate = 0;
  for (const auto& mode : failures.modes) {
    if (mode.on_cooling) {
      if (!cooling) continue;
      const bool leak = mode.cooling_element == cooling::CoolingElement::BRANCH;
      if (!leak && mode.cooling_element != cooling::CoolingElement::LOOP) continue;
      std::vector<int> loops;
      for (int g : gpus)
        loops.push_back(layout.rack_of(g) / cooling->racks_per_loop);
      std::sort(loops.begin(), loops.end());
      loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
      double units = static_cast<double>(loops.size()); // CDUs
      if (leak && cooling->isolation == cooling::Isolation::LOOP) {
        units = 0; // every rack branch of those loops
        for (int l : loops)
          units += std::min(cooling->racks_per_loop, layout.racks() - l * cooling->racks_per_loop);
      } else if (leak) {
        std::vector<int> racks;
        for (int g : gpus)
          racks.push_back(layout.rack_of(g));
        std::sort(racks.begin(), racks.end());
        units = static_cast<double>(std::unique(racks.begin(), racks.end()) - racks.begin());
      }
      rate += mode.unit_rate_per_h(layout) * units;
      continue;
    }
    if (mode.on_fabric) {
      if (!plan) continue;
      const bool single_port = plan->planes() * plan->ports_per_plane() == 1;
      double cutting = 0; // elements whose failure alone cuts one of the GPUs off
      if (single_port && (mode.element == fabric::ElementKind::NIC_PORT || mode.element == fabric::ElementKind::LINK))
        cutting = static_cast<double>(gpus.size());
      if (plan->planes() == 1 && mode.element == fabric::ElementKind::LEAF) {
        std::vector<int> leaves;
        for (int g : gpus)
          leaves.push_back(plan->leaf_of(g));
        std::sort(leaves.begin(), leaves.end());
        cutting = static_cast<double>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
      }
      rate += mode.unit_rate_per_h(layout) * cutting;
      continue;
    }
    std::vector<int> units;
    units.reserve(gpus.size());
    for (int g : gpus)
      units.push_back(layout.unit_of(mode.scope, g));
    std::sort(units.begin(), units.end());
    const auto distinct = std::unique(units.begin(), units.end()) - units.begin();
    rate += mode.unit_rate_per_h(layout) * static_cast<double>(distinct);
  }
  return rate;
}

World::World(const Scenario& scenario)
    : scenario_(scenario), layout_(scenario_.hardware, scenario_.cluster),
      platform_(std::make_unique<sim::Platform>(scenario_.name)) {
  racks_ = std::make_unique<hardware::RackPlatform>(layout_, scenario_.hardware, *platform_);
  if (scenario_.fabric) {
    plan_ = std::make_unique<fabric::ClosPlan>(*scenario_.fabric, layout_);
    if (!plan_->ok()) throw std::logic_error("World: fabric design has problems (the scenario checks should have said so)");
    graph_ = std::make_unique<fabric::ClosGraph>(*plan_);
    fabric_ = std::make_unique<fabric::FabricPlatform>(*graph_, *platform_);
  }
  platform_->set_router([this](int a, int b, std::vector<int>& links, double& latency_s) {
    const int ga = racks_->gpu_of_host(a);
    const int gb = racks_->gpu_of_host(b);
    if (ga >= 0 && gb >= 0) {
      if (racks_->route(ga, gb, links, latency_s)) return;
      if (fabric_ && fabric_->route(ga, gb, links, latency_s)) return;
    }
    throw std::runtime_error(fmt::format("no route between hosts {} and {}: the scenario has no scale-out fabric",
                                         platform_->host(a)->get_cname(), platform_->host(b)->get_cname()));
  });
  platform_->seal();

  for (const auto& mode : scenario_.failures.modes)
    mode_units_.push_back(mode.on_fabric    ? static_cast<int>(fabric_->state().unit_count(mode.element))
                          : mode.on_cooling ? cooling::cooling_unit_count(*scenario_.cooling, mode.cooling_element,
                                                                           layout_.racks())
                                            : layout_.unit_count(mode.scope));

  // Jobs described by a model: the healthy step time, model FLOPs and tokens per step come from the
  // step-time model; without a fabric its scale-out network is the alpha-beta model (below, with a
  // fabric, once the job's GPUs are known).
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

  // Each job's expected failure rate, from the GPUs it gets when placed alone on the healthy cluster
  // (placement is deterministic; the scheduler may later place it elsewhere, on GPUs of the same kind).
  const double duration_s = scenario_.duration_h * sim::S_PER_H;
  std::map<int, std::vector<int>> alone_gpus; // job size -> its GPUs placed alone
  for (std::size_t j = 0; j < scenario_.jobs.size(); ++j) {
    auto& spec = scenario_.jobs[j];
    if (spec.kind == workload::JobKind::INFERENCE) { // not checkpointed: a placeholder keeps indices aligned
      job_rate_per_h_.push_back(0);
      timing_.push_back(workload::JobTiming{.step = 1, .interval = 1});
      continue;
    }
    auto alone = alone_gpus.find(spec.gpus); // placement is deterministic: one per job size
    if (alone == alone_gpus.end()) {
      failure::GpuHealth health(layout_.gpus());
      sched::Allocator alloc(layout_, health, scenario_.operations.spare_domains(layout_.kind()),
                             scenario_.operations.cold_domains(layout_.kind()));
      if (!alloc.place(0, spec.gpus))
        throw std::logic_error(fmt::format("job {} does not fit (the scenario checks should have said so)", spec.name));
      alone = alone_gpus.emplace(spec.gpus, alloc.job_gpus(0)).first;
    }
    const std::vector<int>& gpus = alone->second;
    if (spec.model && fabric_) {
      // The healthy step with the job's collectives played on the fabric over these GPUs (probed in a
      // child process: this one's SimGrid clock stays at 0 for the replicas, which inherit the cache).
      auto comm = std::make_unique<fabric::FabricCommModel>(
          *fabric_, *platform_, *racks_, workload::alpha_beta_params(scenario_.hardware, scale_out_gbps(scenario_)),
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
    const double rate_per_h = failure_rate_per_h(scenario_.failures, layout_, gpus, plan_.get(),
                                                 scenario_.cooling ? &*scenario_.cooling : nullptr);
    job_rate_per_h_.push_back(rate_per_h);

    workload::JobTiming t;
    t.step = std::max<sim::Tick>(1, sim::to_ticks(spec.step_time_s));
    t.write = sim::to_ticks(spec.checkpoint.write_s);
    t.restart = sim::to_ticks(scenario_.operations.restart_s);
    t.planned_every = sim::hours_to_ticks(scenario_.operations.planned_interval_h);
    t.planned_downtime = sim::to_ticks(scenario_.operations.planned_downtime_s);
    double interval_s = spec.checkpoint.interval_s;
    if (spec.checkpoint.auto_interval)
      interval_s = rate_per_h > 0 ? workload::daly_interval_s(spec.checkpoint.write_s, sim::S_PER_H / rate_per_h)
                                  : duration_s; // no failures: no checkpoint is worth its cost
    const double steps = std::max(1.0, std::round(interval_s / sim::to_seconds(t.step)));
    t.interval = static_cast<sim::Tick>(steps) * t.step;
    timing_.push_back(t);
  }
}

World::~World() = default;

ledger::ReplicaResult World::run_replica(int replica, const std::function<void(double)>& progress) {
  if (ran_) throw std::logic_error("World::run_replica: one replica per process (SimGrid's clock cannot be reset)");
  ran_ = true;
  // A replica's large buffers (time series, event log, its sorted copy: MBs) come from the heap, whose
  // top grows in transparent huge pages, rather than from fresh mmaps faulted 4 KiB at a time (each
  // fault costs 10-25 us in a VM; ~1,500 of them per replica of bench case b). One replica per process.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  const Scenario& s = scenario_;
  const auto seed = s.seed;
  const auto rep = static_cast<std::uint64_t>(replica);
  const sim::Tick end = sim::hours_to_ticks(s.duration_h);
  const auto mode_of = [&s](const failure::Failure& f) -> const failure::FailureModeSpec& {
    return s.failures.modes[static_cast<std::size_t>(f.mode)];
  };

  sim::EventQueue queue;
  platform_->bind(queue);
  sim::EventLog log(s.output.events);
  failure::GpuHealth health(layout_.gpus());
  sched::Allocator alloc(layout_, health, s.operations.spare_domains(layout_.kind()),
                         s.operations.cold_domains(layout_.kind()));
  ledger::ClusterLedger cluster(layout_.gpus(), [&alloc](int g) { return alloc.category(g); }, 0);
  std::function<void(int)> on_owner_change; // set once the fabric bookkeeping exists
  std::unique_ptr<Facility> facility;       // cooling, power, RLCC: built once the jobs exist
  alloc.set_change_hook([&](int g) {
    cluster.touch(g, queue.now());
    if (on_owner_change) on_owner_change(g);
    if (facility) facility->on_owner_change(g);
  });
  // Per-rack down GPU-time (racks.csv availability): each rack's down GPU count, integrated at changes.
  std::vector<int> rack_down(static_cast<std::size_t>(layout_.racks()), 0);
  std::vector<sim::Tick> rack_since(static_cast<std::size_t>(layout_.racks()), 0);
  std::vector<ledger::GpuTicks> rack_down_ticks(static_cast<std::size_t>(layout_.racks()), 0);
  std::vector<std::uint64_t> rack_failures(static_cast<std::size_t>(layout_.racks()), 0);
  auto rack_close = [&](std::size_t r, sim::Tick now) {
    rack_down_ticks[r] += static_cast<ledger::GpuTicks>(rack_down[r]) * (now - rack_since[r]);
    rack_since[r] = now;
  };
  // Jobs and services share the allocator's job indices (scenario order): jobs[j] is null for a
  // service, services[j] for a training job.
  std::vector<std::unique_ptr<workload::InferenceService>> services(s.jobs.size());
  std::function<void()> services_changed;
  bool services_recount_due = false; // a service's GPU changed health: it recounts once, at this date
  health.set_transition_hook([&](int g, bool up) {
    if (const int owner = alloc.owner(g); owner >= 0 && services[static_cast<std::size_t>(owner)] && !services_recount_due) {
      services_recount_due = true;
      queue.after(0, [&] {
        services_recount_due = false;
        services_changed();
      });
    }
    const auto r = static_cast<std::size_t>(layout_.rack_of(g));
    rack_close(r, queue.now());
    rack_down[r] += up ? -1 : 1;
    alloc.on_health_change(g, up);
    platform_->set_host_on(racks_->gpu_host(g), up);
    cluster.touch(g, queue.now());
    if (facility) facility->on_health_change(g, up);
  });
  auto owners_of = [&](hardware::GpuRange gpus) {
    std::vector<int> owners;
    for (int g = gpus.first; g < gpus.end(); ++g)
      if (const int owner = alloc.owner(g); owner >= 0) owners.push_back(owner);
    std::sort(owners.begin(), owners.end());
    owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
    return owners;
  };

  std::vector<std::unique_ptr<workload::TrainingJob>> jobs;
  sched::Scheduler scheduler(layout_, alloc, queue, log);
  std::unique_ptr<ops::MissionControl> mission;
  const int modes = static_cast<int>(s.failures.modes.size());
  const bool checks = s.operations.health_check_interval_h > 0;
  int cold_pending = 0;
  services_changed = [&] { // a service replaces down GPUs from spares at once, and recounts
    for (std::size_t j = 0; j < services.size(); ++j)
      if (services[j]) {
        alloc.recover(static_cast<int>(j));
        services[j]->on_gpus_changed();
      }
  };
  auto notify_capacity = [&] {
    services_changed();
    for (auto& sv : services) // a service short of what it wants takes freed domains first
      if (sv) sv->on_capacity_changed();
    for (auto& job : jobs) // returned capacity goes to waiting jobs in scenario order (earlier jobs first)
      if (job) job->on_capacity_changed();
    scheduler.capacity_changed(); // then to queued jobs
  };
  auto request_cold = [&] { // no warm spare left: bring a cold one in
    if (cold_pending > 0 || alloc.cold_domains() - cold_pending <= 0) return;
    ++cold_pending;
    log.add({queue.now(), "cold_spare_requested", "", "domain", "", fmt::format("{} h", s.operations.cold_swap_h)});
    queue.after(sim::hours_to_ticks(s.operations.cold_swap_h), [&] {
      --cold_pending;
      if (alloc.activate_cold()) notify_capacity();
    });
  };
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    if (s.jobs[j].kind == workload::JobKind::INFERENCE) {
      jobs.push_back(nullptr);
      continue;
    }
    workload::TrainingJob::Hooks hooks;
    hooks.recover = [&, j](sim::Tick& extra) {
      const int job = static_cast<int>(j);
      bool ok = alloc.recover(job);
      if (ok && checks) { // the restart's pre-flight health check: latent faults found go to repair
        if (mission->preflight([&](int g) { return alloc.owner(g) == job; }) > 0) ok = alloc.recover(job);
        extra += sim::to_ticks(s.operations.health_check_duration_s);
      }
      if (alloc.take_domain_swaps() > 0) extra += sim::to_ticks(s.operations.warm_swap_s);
      if (!ok) request_cold();
      return ok;
    };
    hooks.cause_name = [&s, modes](int mode) {
      return mode < modes ? s.failures.modes[static_cast<std::size_t>(mode)].name : Facility::extra_cause_name(mode - modes);
    };
    hooks.training_changed = [&facility, j](bool training) {
      if (facility) facility->on_training_changed(static_cast<int>(j), training);
    };
    hooks.stopped = [&facility, j] {
      if (facility) facility->on_job_stopped(static_cast<int>(j));
    };
    jobs.push_back(std::make_unique<workload::TrainingJob>(s.jobs[j], timing_[j], modes + Facility::extra_causes(s),
                                                           queue, log, hooks));
  }

  // Each job's pace: its step with the slowest of its GPUs (gray stragglers: clock), the least scale-out
  // bandwidth left to them (fabric faults) and the least NVLink bandwidth of its domains, relative to
  // the healthy step. Model jobs ask their step model (cached by state); measured jobs stretch the
  // shares of their step: (1 - c - n)/clock + c/bw + n/nvlink.
  // With a fabric, a model job's collectives are played on it (FabricCommModel, starting from the cache
  // of the World's healthy probe) over the job's GPUs as placed now; its state class is kept current
  // below (placement key, least scale-out share, NVLink share).
  std::vector<workload::AlphaBetaCommModel> comms; // step models keep references: filled once, never grown
  std::vector<std::unique_ptr<fabric::FabricCommModel>> fabric_comms(s.jobs.size());
  std::vector<std::unique_ptr<workload::StepModel>> step_models;
  comms.reserve(s.jobs.size());
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    comms.emplace_back(workload::alpha_beta_params(s.hardware, scale_out_gbps(s)));
    if (fabric_comms_[j]) {
      fabric_comms[j] = std::make_unique<fabric::FabricCommModel>(*fabric_comms_[j]);
      fabric_comms[j]->set_placement([&alloc, j] { return alloc.job_gpus(static_cast<int>(j)); });
    }
  }
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    if (!s.jobs[j].model) {
      step_models.push_back(nullptr);
      continue;
    }
    const workload::CommModel& comm =
        fabric_comms[j] ? static_cast<const workload::CommModel&>(*fabric_comms[j]) : comms[j];
    step_models.push_back(std::make_unique<workload::StepModel>(*s.jobs[j].model, s.hardware, comm));
    if (fabric_comms[j]) fabric_comms[j]->expect(step_models.back()->groups());
  }
  std::map<int, double> slow_gpus;          // gray faults: GPU -> clock fraction
  std::map<int, double> nvlink_domains;     // degraded NVLink domains -> bandwidth share
  // Fabric bandwidth, tracked per leaf (a GPU whose NIC ports are all up has its leaf's share) plus the
  // few GPUs with a port down: a spine fault touches every GPU, but only every leaf.
  const fabric::FabricState* fstate = fabric_ ? &fabric_->state() : nullptr;
  const int leaves = fabric_ ? plan_->leaves() : 0;
  std::vector<double> leaf_bw(static_cast<std::size_t>(leaves), 1.0);
  std::set<int> port_degraded;                       // GPUs with a NIC port (or its cable) down
  std::vector<char> cut_off(fabric_ ? static_cast<std::size_t>(layout_.gpus()) : 0, 0);
  std::vector<std::vector<int>> job_leaf_gpus(s.jobs.size(), std::vector<int>(static_cast<std::size_t>(leaves), 0));
  std::vector<std::uint64_t> job_placement_key(s.jobs.size(), 0); // FabricCommModel's: Σ leaf_count_key(count)
  std::vector<int> owner_seen(fabric_ ? static_cast<std::size_t>(layout_.gpus()) : 0, -1);
  auto count_leaf = [&](int job, std::size_t leaf, int delta) {
    int& count = job_leaf_gpus[static_cast<std::size_t>(job)][leaf];
    std::uint64_t& key = job_placement_key[static_cast<std::size_t>(job)];
    key -= fabric::FabricCommModel::leaf_count_key(count);
    count += delta;
    key += fabric::FabricCommModel::leaf_count_key(count);
  };
  if (fabric_)
    for (int g = 0; g < layout_.gpus(); ++g)
      if (const int owner = alloc.owner(g); owner >= 0) {
        owner_seen[static_cast<std::size_t>(g)] = owner;
        count_leaf(owner, static_cast<std::size_t>(plan_->leaf_of(g)), +1);
      }
  on_owner_change = [&](int g) { // keeps each job's GPU count per leaf current
    if (!fabric_) return;
    const int now_owner = alloc.owner(g);
    int& seen = owner_seen[static_cast<std::size_t>(g)];
    if (now_owner == seen) return;
    const auto leaf = static_cast<std::size_t>(plan_->leaf_of(g));
    if (seen >= 0) count_leaf(seen, leaf, -1);
    if (now_owner >= 0) count_leaf(now_owner, leaf, +1);
    seen = now_owner;
  };
  struct Pace {
    double bw = 1, clock = 1, nvlink = 1;
    double leaf_bw = 1;          ///< model jobs on a fabric: the least share its leaves leave (bw: with ports)
    std::uint64_t placement = 0; ///< model jobs on a fabric: their placement class
    bool operator==(const Pace&) const = default;
  };
  std::vector<Pace> job_pace(s.jobs.size());
  auto update_paces = [&](bool stall) {
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (!jobs[j]) continue;
      const int job = static_cast<int>(j);
      Pace p;
      if (fabric_) {
        for (int l = 0; l < leaves; ++l)
          if (job_leaf_gpus[j][static_cast<std::size_t>(l)] > 0) p.bw = std::min(p.bw, leaf_bw[static_cast<std::size_t>(l)]);
        for (int g : port_degraded)
          if (alloc.owner(g) == job && !cut_off[static_cast<std::size_t>(g)]) p.bw = std::min(p.bw, fstate->bw_frac(g));
        if (p.bw <= 0) continue; // GPUs there are cut off: the job is interrupted, not slowed
      }
      // The placement class of a model job at full size (a job released, or shrunk below its
      // parallelism's GPUs, keeps the last one: its step is not re-derived for a size it does not run).
      if (fabric_comms[j]) {
        p.placement = alloc.job_gpu_count(job) == s.jobs[j].gpus ? job_placement_key[j] : job_pace[j].placement;
        for (int l = 0; l < leaves; ++l)
          if (job_leaf_gpus[j][static_cast<std::size_t>(l)] > 0)
            p.leaf_bw = std::min(p.leaf_bw, leaf_bw[static_cast<std::size_t>(l)]);
      }
      if (facility) p.clock = facility->job_clock(job); // thermal throttling, power capping
      for (const auto& [g, clock] : slow_gpus)
        if (alloc.owner(g) == job) p.clock = std::min(p.clock, clock);
      for (const auto& [d, share] : nvlink_domains)
        if (alloc.domain_job(d) == job) p.nvlink = std::min(p.nvlink, share);
      if (p == job_pace[j]) continue;
      if (stall && p.bw < job_pace[j].bw) jobs[j]->stall(sim::to_ticks(s.fabric->reroute_s));
      job_pace[j] = p;
      double slowdown = 1.0;
      if (fabric_comms[j]) {
        fabric_comms[j]->set_placement_key(p.placement);
        fabric_comms[j]->set_scale_out_bw_frac(p.bw);
        fabric_comms[j]->set_leaf_bw_frac(p.leaf_bw);
        fabric_comms[j]->set_nvlink_bw_frac(p.nvlink);
      }
      if (step_models[j]) {
        comms[j].set_scale_out_bw_frac(p.bw);
        comms[j].set_nvlink_bw_frac(p.nvlink);
        slowdown = step_models[j]->evaluate(p.clock).step_time_s / healthy_step_s_[j];
      } else {
        const double c = s.jobs[j].scaleout_comm_frac, n = s.jobs[j].nvlink_comm_frac;
        slowdown = (1.0 - c - n) / p.clock + c / p.bw + n / p.nvlink;
      }
      jobs[j]->set_slowdown(std::max(1.0, slowdown));
    }
  };
  alloc.set_move_hook([&](int job, const std::string& kind, const std::string& from, const std::string& to) {
    log.add({queue.now(), kind, to, kind == "gpu_swap" ? "gpu" : "domain", s.jobs[static_cast<std::size_t>(job)].name,
             "replaces " + from});
    update_paces(false); // the job may have moved onto or off slow GPUs, lost bandwidth or degraded NVLink
  });
  // A fabric element changed state: GPUs it cut off are down until it is back (newly_cut lists those
  // cut off by a failure); the bandwidth left sets the jobs' paces.
  std::vector<int> newly_cut;
  std::vector<int> leaf_gpus;
  auto set_cut = [&](int g) {
    const bool cut = fstate->cut_off(g);
    char& was = cut_off[static_cast<std::size_t>(g)];
    if (cut && !was) {
      was = 1;
      newly_cut.push_back(g);
      health.fail({g, 1});
    } else if (!cut && was) {
      was = 0;
      health.repair({g, 1});
    }
  };
  auto fabric_changed = [&](const fabric::Element& e, bool failed) {
    newly_cut.clear();
    const fabric::Affected affected = fstate->affected(e, /*with_gpus=*/false);
    for (int l : affected.leaves) {
      const double before = leaf_bw[static_cast<std::size_t>(l)];
      const double after = fstate->leaf_bw_frac(l);
      leaf_bw[static_cast<std::size_t>(l)] = after;
      if ((before > 0) != (after > 0)) { // the whole leaf lost or regained every path
        leaf_gpus.clear();
        plan_->leaf_gpus(l, leaf_gpus);
        for (int g : leaf_gpus)
          set_cut(g);
      }
    }
    for (int g : affected.gpus) { // a NIC port or its cable
      if (fstate->ports_complete(g))
        port_degraded.erase(g);
      else
        port_degraded.insert(g);
      set_cut(g);
    }
    update_paces(failed);
  };
  auto element_of = [&](const failure::Failure& f) { return fstate->element(mode_of(f).element, f.unit); };
  auto interrupt = [&](const failure::Failure& f, const std::vector<int>& owners) {
    for (int j : owners)
      if (jobs[static_cast<std::size_t>(j)])
        jobs[static_cast<std::size_t>(j)]->on_failure(f.id, f.mode);
      else
        services[static_cast<std::size_t>(j)]->on_gpus_changed(); // serves on fewer GPUs until replaced
  };
  auto clear_slow = [&](const failure::Failure& f) {
    bool changed = false;
    for (int g = f.gpus.first; g < f.gpus.end(); ++g)
      changed |= slow_gpus.erase(g) > 0;
    return changed;
  };
  // Drains (planned repairs): the GPUs become unusable for placement at once; jobs holding some stop at
  // their next checkpoint; when the last has stopped, `done` takes them (and they are no longer drained:
  // they are down).
  auto drain = [&](hardware::GpuRange gpus, std::function<void()> done) {
    alloc.set_draining(gpus, true);
    std::vector<int> holders = owners_of(gpus); // training jobs stop at a checkpoint; a service just moves
    std::erase_if(holders, [&](int j) { return !jobs[static_cast<std::size_t>(j)]; });
    auto finish = [&, gpus, done] {
      done();
      alloc.set_draining(gpus, false);
      services_changed();
    };
    if (holders.empty()) {
      queue.after(0, finish);
      return;
    }
    auto left = std::make_shared<int>(static_cast<int>(holders.size()));
    for (int j : holders)
      jobs[static_cast<std::size_t>(j)]->request_stop([left, finish] {
        if (--*left == 0) finish();
      });
  };

  ops::MissionControl::Listener mc_listener;
  mc_listener.taken_down = [&](const failure::Failure& f) { // a gray fault caught, a latent one failing
    const bool slowed = clear_slow(f);
    interrupt(f, owners_of(f.gpus));
    if (slowed) update_paces(false);
  };
  mc_listener.detected = [&](const failure::Failure& f) {
    for (auto& job : jobs)
      if (job) job->on_failure_detected(f.id);
    services_changed();
  };
  mc_listener.repaired = [&](const failure::Failure& f) {
    const auto& m = mode_of(f);
    if (m.on_fabric) {
      const fabric::Element e = element_of(f);
      if (fabric_->restore(e)) fabric_changed(e, false);
    }
    if (m.kind == failure::FaultKind::GRAY && clear_slow(f)) update_paces(false);
    if (m.nvlink_degraded_frac > 0 && nvlink_domains.erase(layout_.domain_of(f.gpus.first))) update_paces(false);
    notify_capacity();
  };
  mc_listener.drain = drain;
  mc_listener.is_free = [&](hardware::GpuRange gpus) {
    for (int g = gpus.first; g < gpus.end(); ++g)
      if (alloc.owner(g) >= 0) return false;
    return true;
  };
  ops::MissionControl::Namer namer = [&](const failure::Failure& f) {
    return mode_of(f).on_fabric ? fstate->name(element_of(f)) : layout_.unit_name(f.scope, f.unit);
  };
  mission = std::make_unique<ops::MissionControl>(s.operations, s.failures, layout_, health, queue, log, seed, rep,
                                                  mc_listener, namer);
  auto injector = std::make_unique<failure::FailureInjector>(
      s.failures.modes, layout_, health, queue, seed, rep,
      [&](const failure::Failure& f) {
        if (mode_of(f).on_cooling) {
          facility->on_failure(f);
          return;
        }
        const auto& m = mode_of(f);
        if (f.gpus.count > 0)
          for (int r = layout_.rack_of(f.gpus.first); r <= layout_.rack_of(f.gpus.end() - 1); ++r)
            ++rack_failures[static_cast<std::size_t>(r)];
        std::vector<int> struck;
        if (m.takes_down()) struck = owners_of(f.gpus);
        if (m.on_fabric) {
          const fabric::Element e = element_of(f);
          if (fabric_->fail(e)) fabric_changed(e, true);
          for (int g : newly_cut)
            if (const int owner = alloc.owner(g); owner >= 0) struck.push_back(owner);
          newly_cut.clear();
          std::sort(struck.begin(), struck.end());
          struck.erase(std::unique(struck.begin(), struck.end()), struck.end());
        }
        if (m.kind == failure::FaultKind::GRAY) {
          for (int g = f.gpus.first; g < f.gpus.end(); ++g)
            slow_gpus[g] = 1.0 / m.gray_slowdown;
          update_paces(false);
        }
        if (m.nvlink_degraded_frac > 0) {
          const int d = layout_.domain_of(f.gpus.first);
          auto [it, fresh] = nvlink_domains.emplace(d, m.nvlink_degraded_frac);
          if (!fresh) it->second = std::min(it->second, m.nvlink_degraded_frac);
          update_paces(false);
        }
        interrupt(f, struck);
        mission->on_failure(f);
      },
      mode_units_);
  injector->set_predictor([&](int mode, int unit, sim::Tick date) { mission->on_predicted(mode, unit, date); });
  mission->set_injector(injector.get());

  ledger::ReplicaResult result;
  result.replica = replica;
  result.gpus = layout_.gpus();
  result.duration = end;
  result.peak_flops_per_gpu = s.hardware.gpu.peak_tflops * 1e12;

  Facility::Hooks facility_hooks;
  facility_hooks.clocks_changed = [&] { update_paces(false); };
  facility_hooks.fault_repaired = [&](const failure::Failure& f) {
    injector->renew(f);
    notify_capacity();
  };
  facility_hooks.capacity_changed = notify_capacity;
  facility = std::make_unique<Facility>(s, layout_, health, alloc, jobs, queue, log, result.samples, seed, rep,
                                        std::move(facility_hooks));
  facility->start();

  // Scheduling: the scheduler places training jobs as they arrive; services take their own domains.
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const auto& spec = s.jobs[j];
    sched::JobRequest req;
    req.name = spec.name;
    req.priority = spec.priority;
    req.arrival = sim::hours_to_ticks(spec.arrival_h);
    req.gpus = spec.gpus;
    req.min_gpus = static_cast<int>(std::ceil(spec.gpus * spec.min_gpus_frac));
    if (auto* job = jobs[j].get()) {
      req.control.place = [job, &update_paces](int gpus) {
        job->place(gpus);
        update_paces(false); // its pace on the GPUs it got (slow GPUs, degraded links, placement)
      };
      req.control.request_stop = [job](std::function<void()> stopped) { job->request_stop(std::move(stopped)); };
      req.control.release = [job] { job->release(); };
      req.control.resize = [job, &update_paces](int gpus) {
        job->resize(gpus);
        update_paces(false);
      };
      job->set_completion_hook([&scheduler, &services, j] {
        scheduler.completed(static_cast<int>(j)); // queued training jobs first, then services short of GPUs
        for (auto& sv : services)
          if (sv) sv->on_capacity_changed();
      });
    } else {
      req.external = true;
      services[j] = std::make_unique<workload::InferenceService>(spec, static_cast<int>(j), layout_, alloc, scheduler,
                                                                 queue, log);
    }
    scheduler.add(std::move(req));
  }

  // Time series: cluster gauges and each job's state, sampled on a fixed grid.
  const sim::Tick sample_every = sim::to_ticks(s.output.timeseries_interval_s);
  const std::string domain_word = layout_.kind() == hardware::RackKind::NVL72 ? "racks" : "nodes";
  const std::string domain_gauge = "schedulable_" + domain_word;
  std::vector<sim::Name> state_gauges;
  for (const char* state : sched::Allocator::DOMAIN_STATE_NAMES)
    state_gauges.push_back(domain_word + "_" + state);
  // Names interned once: a sample then costs no hash lookup.
  const sim::Name n_cluster("cluster"), n_healthy("healthy_gpus"), n_domain(domain_gauge), n_repairs("repairs_queued"),
      n_hpg("healthy_production_gpus"), n_frag("fragmentation_frac"), n_queued("queued_jobs"), n_training("training"),
      n_gpus("gpus"), n_step("step_time_s");
  std::vector<sim::Name> job_names;
  for (const auto& spec : s.jobs)
    job_names.emplace_back(spec.name);
  std::function<void()> sample = [&] {
    const sim::Tick now = queue.now();
    result.samples.push_back({now, n_cluster, n_healthy, static_cast<double>(layout_.gpus() - health.down_gpus())});
    result.samples.push_back({now, n_cluster, n_domain, static_cast<double>(alloc.schedulable_domains())});
    result.samples.push_back({now, n_cluster, n_repairs, static_cast<double>(mission->queued_repairs())});
    const sched::Allocator::Census census = alloc.census();
    const auto [stranded, free_gpus] = census.fragmentation;
    result.samples.push_back({now, n_cluster, n_hpg, static_cast<double>(census.healthy_allocated_gpus)});
    for (std::size_t st = 0; st < census.domain_states.size(); ++st)
      result.samples.push_back({now, n_cluster, state_gauges[st], static_cast<double>(census.domain_states[st])});
    result.samples.push_back({now, n_cluster, n_frag, free_gpus > 0 ? static_cast<double>(stranded) / free_gpus : 0.0});
    result.samples.push_back({now, n_cluster, n_queued, static_cast<double>(scheduler.queued())});
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (const auto& job = jobs[j]) {
        result.samples.push_back({now, job_names[j], n_training, job->training() ? 1.0 : 0.0});
        result.samples.push_back({now, job_names[j], n_gpus, static_cast<double>(job->gpus())});
        result.samples.push_back({now, job_names[j], n_step, sim::to_seconds(job->timing().step) * job->slowdown()});
      }
    for (const auto& sv : services)
      if (sv) {
        result.samples.push_back({now, sv->spec().name, "demand_tokens_per_s", sv->demand_tokens_per_s(now)});
        result.samples.push_back({now, sv->spec().name, "serving_gpus", static_cast<double>(sv->serving_gpus())});
      }
    if (fabric_) { // GPUs reachable with less than their full scale-out bandwidth
      int degraded = 0;
      for (int l = 0; l < leaves; ++l)
        if (leaf_bw[static_cast<std::size_t>(l)] > 0 && leaf_bw[static_cast<std::size_t>(l)] < 1)
          degraded += plan_->leaf_gpu_count(l);
      for (int g : port_degraded)
        if (!cut_off[static_cast<std::size_t>(g)] && leaf_bw[static_cast<std::size_t>(plan_->leaf_of(g))] == 1) ++degraded;
      result.samples.push_back({now, "cluster", "degraded_bw_gpus", static_cast<double>(degraded)});
    }
    if (now + sample_every <= end) queue.after(sample_every, sample);
  };
  if (sample_every > 0) queue.at(0, sample);

  // Progress: a fraction published about 200 times per replica.
  const sim::Tick progress_every = std::max<sim::Tick>(1, end / 200);
  std::function<void()> tick_progress = [&] {
    progress(static_cast<double>(queue.now()) / static_cast<double>(end));
    if (queue.now() + progress_every < end) queue.after(progress_every, tick_progress);
  };
  if (progress) queue.at(0, tick_progress);

  for (auto& sv : services) // production serving first: training gets what is left, then lends
    if (sv) sv->start();
  scheduler.start();
  injector->start();
  mission->start();
  platform_->run_until(end);
  for (auto& job : jobs)
    if (job) job->finish();
  for (auto& sv : services)
    if (sv) sv->finish();
  cluster.finish(end);

  // Exact conservation checks (integer GPU·µs): failing one is a bug, never a property of the input.
  ledger::GpuTicks allocated = 0;
  for (const auto& job : jobs)
    if (job)
      for (auto t : job->gpu_time())
        allocated += t;
  for (const auto& sv : services)
    if (sv) allocated += sv->held_gpu_time();
  if (cluster.gpu_ticks(sched::Category::ALLOCATED) != allocated ||
      cluster.total() != static_cast<ledger::GpuTicks>(layout_.gpus()) * end)
    throw std::logic_error("cluster ledger not conserved");

  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (const auto* sv = services[j].get()) {
      ledger::ServiceOutcome o;
      o.name = sv->spec().name;
      o.gpus = sv->spec().gpus;
      o.demanded_tokens = sv->demanded_tokens();
      o.served_tokens = sv->served_tokens();
      o.serving_gpu_h = ledger::to_gpu_hours(sv->serving_gpu_time());
      o.moving_gpu_h = ledger::to_gpu_hours(sv->moving_gpu_time());
      o.down_gpu_h = ledger::to_gpu_hours(sv->down_gpu_time());
      o.moves = sv->moves();
      result.services.push_back(std::move(o));
      continue;
    }
    const auto& job = *jobs[j];
    ledger::JobOutcome o;
    o.name = job.spec().name;
    o.gpus = job.spec().gpus;
    o.wall = job.wall();
    o.queued = job.queued_time();
    o.completed_at = job.completed_at();
    o.reallocations = job.reallocations();
    for (int st = 0; st < workload::JOB_TIME_STATES; ++st)
      o.gpu_h[static_cast<std::size_t>(st)] = ledger::to_gpu_hours(job.gpu_time()[static_cast<std::size_t>(st)]);
    o.interruptions = job.interruptions();
    o.interruptions_planned = job.interruptions_planned();
    o.checkpoints = job.checkpoints();
    o.failures_by_mode = job.failures_by_mode();
    o.interruptions_by_mode = job.interruptions_by_mode();
    o.step_time_s = sim::to_seconds(timing_[j].step);
    o.checkpoint_interval_s = sim::to_seconds(timing_[j].interval);
    o.model_flops_per_step = job.spec().model_flops_per_step;
    o.tokens_per_step = job.spec().tokens_per_step;
    if (job.spec().model)
      o.peak_flops_per_gpu = s.hardware.gpu.peak_tflops_at(job.spec().model->model.precision) * 1e12;
    o.expected_mtbf_h = job_rate_per_h_[j] > 0 ? 1.0 / job_rate_per_h_[j] : std::numeric_limits<double>::infinity();
    result.jobs.push_back(std::move(o));
  }
  result.unallocated_gpu_h = {ledger::to_gpu_hours(cluster.gpu_ticks(sched::Category::IDLE)),
                              ledger::to_gpu_hours(cluster.gpu_ticks(sched::Category::REPAIR)),
                              ledger::to_gpu_hours(cluster.gpu_ticks(sched::Category::SPARE))};
  result.preemptions = scheduler.preemptions();
  for (std::size_t r = 0; r < rack_down.size(); ++r) {
    rack_close(r, end);
    result.rack_down_gpu_h.push_back(ledger::to_gpu_hours(rack_down_ticks[r]));
  }
  result.rack_failures = std::move(rack_failures);
  for (std::size_t m = 0; m < s.failures.modes.size(); ++m) {
    const auto& st = mission->stats()[m];
    result.modes.push_back({s.failures.modes[m].name, st.failures, st.repaired, sim::to_hours(st.time_to_repair)});
  }
  facility->finish(end, result); // energy, cooling metrics, cooling modes' repairs, extra causes
  // Jobs log completed checkpoints when they close a cycle, after the fact: order the log by date
  // (stable: events of one date keep the order in which they were logged).
  auto records = log.take();
  std::vector<std::pair<sim::Tick, std::size_t>> order(records.size());
  for (std::size_t i = 0; i < records.size(); ++i)
    order[i] = {records[i].time, i};
  std::sort(order.begin(), order.end());
  result.events.reserve(records.size());
  for (const auto& [time, i] : order)
    result.events.push_back(std::move(records[i]));
  return result;
}

} // namespace dcsim
