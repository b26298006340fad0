#include "models/replica.hpp"

#include "models/ledger/losses.hpp"
#include "models/world.hpp"
#include "sim/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dcsim {

Replica::Replica(World& world, int replica, std::function<void(double)> progress)
    : world_(&world), s_(&world.scenario()), layout_(&world.layout()), seed_(s_->seed),
      replica_(static_cast<std::uint64_t>(replica)), end_(sim::hours_to_ticks(s_->duration_h)),
      progress_(std::move(progress)), modes_(static_cast<int>(s_->failures.modes.size())),
      log_(s_->output.events), health_(layout_->gpus()),
      alloc_(*layout_, health_, s_->operations.spare_domains(layout_->kind()),
             s_->operations.cold_domains(layout_->kind())),
      cluster_(
          layout_->gpus(), [this](int g) { return alloc_.category(g); }, 0),
      rack_avail_(layout_->racks()),
      placement_(layout_->gpus(), static_cast<int>(s_->jobs.size())),
      scheduler_(*layout_, alloc_, queue_, log_),
      paces_(*this, queue_, s_->jobs.size(), s_->fabric ? s_->fabric->reroute_s : 0,
             s_->fabric && s_->fabric->ecmp_hash) {
  rack_grouping_ = placement_.add_grouping(layout_->racks(), [this](int g) { return layout_->rack_of(g); });
  alloc_.set_policy(s_->operations.placement, sched::placement_topology(world_->clos_plan(), layout_->domains()),
                    sim::stream_seed(seed_, replica_, "placement/spread"));
  spans_ = std::make_unique<sched::SpanRecorder>(world_->clos_plan());
  cold_ = std::make_unique<sched::ColdSpares>(alloc_, queue_, log_, s_->operations.cold_swap_h, [this] {
    ++result_.cold_spare_activations;
    notify_capacity();
  });
  build_jobs();
  build_paces();
  build_domains();
  build_operations();
  result_.replica = replica;
  result_.gpus = layout_->gpus();
  result_.duration = end_;
  result_.peak_flops_per_gpu = s_->hardware.gpu.peak_tflops * 1e12;
  build_facility();
  add_workloads_to_scheduler();
  register_gauges();
}

Replica::~Replica() = default;

// --- Assembly ---------------------------------------------------------------------------------------

void Replica::build_jobs() {
  if (world_->storage_network()) { // SimGrid's clock follows this replica's queue
    world_->platform()->bind(queue_);
    storage_ = std::make_unique<storage::StorageTraffic>(*world_->storage_network(), *world_->platform(), queue_,
                                                        world_->checkpoint_plans());
  }
  for (std::size_t j = 0; j < s_->jobs.size(); ++j) {
    if (s_->jobs[j].kind == workload::JobKind::INFERENCE) {
      auto service = std::make_unique<workload::InferenceService>(
          s_->jobs[j], static_cast<int>(j), *layout_, alloc_, scheduler_, queue_, log_, &s_->hardware,
          sim::stream_seed(seed_, replica_, "serving/" + s_->jobs[j].name));
      service->set_load_hook([this, j](double busy_gpus) {
        if (facility_) facility_->on_serving_load(static_cast<int>(j), busy_gpus);
      });
      workloads_.add(std::move(service));
      continue;
    }
    const int job = static_cast<int>(j);
    workload::TrainingJob::Hooks hooks;
    hooks.recover = [this, job](sim::Tick& extra) { return recover(job, extra); };
    hooks.cause_name = [this](int mode) {
      return mode < modes_ ? s_->failures.modes[static_cast<std::size_t>(mode)].name
                           : Facility::extra_cause_name(mode - modes_);
    };
    hooks.training_changed = [this, job](bool training) {
      paces_.training_changed(job, training);
      facility_->on_training_changed(job, training);
    };
    hooks.stopped = [this, job] { facility_->on_job_stopped(job); };
    hooks.ranks_up = [this, job](const std::vector<int>& ranks) {
      return alloc_.ranks_up(sched::JobId{job}, ranks);
    };
    if (storage_ && storage_->active(job)) { // drains and restores played as flows
      hooks.snapshot = [this, job](bool durable) { return storage_->snapshot(job, durable); };
      hooks.lost = [this, job](int mode) { return storage_->lost(job, mode); };
      hooks.load = [this, job](int mode, std::function<void()> done) { storage_->load(job, mode, std::move(done)); };
    }
    workloads_.add(std::make_unique<workload::TrainingJob>(
        s_->jobs[j], world_->job_timing()[j], modes_ + Facility::extra_causes(*s_), queue_, log_, hooks));
  }
}

bool Replica::recover(int job, sim::Tick& extra) {
  bool ok = alloc_.recover(job);
  if (ok && s_->operations.health_check_interval_h > 0) { // the restart's pre-flight health check
    if (mission_->preflight([this, job](int g) { return alloc_.owner(hardware::GpuIndex{g}).value() == job; }) > 0)
      ok = alloc_.recover(job);
    extra += sim::to_ticks(s_->operations.health_check_duration_s);
  }
  if (alloc_.take_domain_swaps() > 0) extra += sim::to_ticks(s_->operations.warm_swap_s);
  if (!ok) cold_->request(); // no warm spare left: bring a cold one in
  return ok;
}

void Replica::build_paces() {
  // With a fabric, a model job's collectives are played on it (a copy of the World's FabricCommModel,
  // whose cache holds the healthy probe) over the job's GPUs as placed now.
  const auto params = workload::alpha_beta_params(s_->hardware, scale_out_gbps(*s_));
  for (std::size_t j = 0; j < s_->jobs.size(); ++j) {
    auto* job = workloads_.training(static_cast<int>(j));
    if (!job) continue;
    std::unique_ptr<fabric::FabricCommModel> comm;
    if (const auto* healthy = world_->fabric_comm(static_cast<int>(j))) {
      comm = std::make_unique<fabric::FabricCommModel>(*healthy);
      comm->set_placement([this, j] { return alloc_.job_gpus(static_cast<int>(j)); });
    }
    paces_.add(static_cast<int>(j), *job,
               std::make_unique<workload::JobPace>(s_->jobs[j], s_->hardware, params, std::move(comm),
                                                   world_->healthy_step_s(static_cast<int>(j))));
  }
  if (world_->fabric()) // phase_overlap isolated: no coupling, but the links' utilisation is kept
    paces_.set_sharing(std::make_unique<workload::FabricSharing>(
        *world_->fabric(), s_->fabric->phase_overlap, sim::stream_seed(seed_, replica_, "fabric/phase-offsets"),
        fabric::SharedRouting{s_->fabric->ecmp_hash, s_->fabric->collective_channels * s_->fabric->qps_per_connection,
                              sim::stream_seed(seed_, 0, "fabric/ecmp-hash"), s_->hardware.gpu.nic_efficiency_frac},
        s_->fabric->shared));
  if (storage_ && paces_.sharing() && s_->storage->converged) { // checkpoint hops across the network ride the fabric
    fabric_storage_ = std::make_unique<storage::FabricStorage>(
        paces_.sharing()->network(), queue_, world_->checkpoint_plans(), [this](int job) { return alloc_.job_gpus(job); },
        [this] { paces_.update(false); });
    storage_->set_fabric_hop([this](int job, int position, bool write, bool peers, double bytes,
                                    std::function<void(bool)> done) {
      fabric_storage_->hop(job, position, write, peers, bytes, std::move(done));
    });
  }
  if (const auto* fabric = world_->fabric())
    fabric_ = std::make_unique<fabric::FabricTracker>(fabric->state(), placement_,
                                                      [this](int g, bool cut) {
                                                        if (cut) {
                                                          newly_cut_.push_back(g);
                                                          health_.fail({g, 1});
                                                        } else {
                                                          health_.repair({g, 1});
                                                        }
                                                      });
}

void Replica::build_domains() {
  failure::DomainHooks hooks;
  if (world_->fabric()) hooks.fabric_platform = &world_->fabric_platform();
  hooks.fabric_changed = [this](const fabric::Element& e, bool failed, std::vector<int>& cut) {
    fabric_changed(e, failed, cut);
  };
  hooks.cooling_strike = [this](const failure::Failure& f) {
    mission_->record(f); // Racky's alarm comes before the fault's physics (throttling, shutdowns)
    facility_->on_failure(f);
  };
  hooks.rack_power = [this](int rack, bool down) {
    const hardware::GpuRange gpus = layout_->unit_range(hardware::Scope::RACK, rack);
    if (down)
      health_.fail(gpus);
    else
      health_.repair(gpus);
  };
  const std::vector<std::string> stores = s_->storage ? s_->storage->object_stores() : std::vector<std::string>{};
  hooks.object_store = [this, stores](int store, double bandwidth_frac) {
    if (storage_) storage_->store_changed(stores.at(static_cast<std::size_t>(store)), bandwidth_frac);
    if (fabric_storage_) fabric_storage_->store_changed(stores.at(static_cast<std::size_t>(store)), bandwidth_frac);
  };
  domains_ = failure::make_failure_domains(s_->hardware, *layout_, world_->fabric() ? &world_->fabric()->state() : nullptr,
                                           s_->cooling ? &*s_->cooling : nullptr, stores, std::move(hooks));
}

failure::FailureDomain& Replica::domain_of(const failure::FailureModeSpec& mode) const {
  return domains_.of(mode);
}

void Replica::build_operations() {
  ops::MissionControl::Listener listener;
  listener.taken_down = [this](const failure::Failure& f) { on_taken_down(f); };
  listener.detected = [this](const failure::Failure& f) { on_detected(f); };
  listener.repaired = [this](const failure::Failure& f) { on_repaired(f); };
  listener.drain = [this](hardware::GpuRange gpus, std::function<void()> done) {
    drains_.drain(gpus, std::move(done));
  };
  listener.is_free = [this](hardware::GpuRange gpus) {
    for (int g = gpus.first; g < gpus.end(); ++g)
      if (alloc_.owner(hardware::GpuIndex{g}).value() >= 0) return false;
    return true;
  };
  mission_ = std::make_unique<ops::MissionControl>(
      s_->operations, s_->failures, *layout_, health_, queue_, log_, seed_, replica_, listener,
      [this](const failure::Failure& f) { return component_name(f); });
  injector_ = std::make_unique<failure::FailureInjector>(
      s_->failures.modes, *layout_, health_, queue_, seed_, replica_,
      [this](const failure::Failure& f) { on_strike(f); }, world_->mode_units());
  injector_->set_predictor(
      [this](int mode, int unit, sim::Tick date) { mission_->on_predicted(mode, unit, date); });
  if (s_->failures.clock == failure::FailureClock::PAUSED_DURING_RECOVERY)
    injector_->set_pause([this](int, hardware::GpuRange gpus) { return held_by_recovering_jobs(gpus); });
  mission_->set_injector(injector_.get());
}

void Replica::build_facility() {
  Facility::Hooks hooks;
  hooks.clocks_changed = [this] { paces_.update(false); };
  hooks.capacity_changed = [this] { notify_capacity(); };
  facility_ = std::make_unique<Facility>(*s_, *layout_, health_, alloc_, placement_, rack_grouping_, workloads_,
                                         queue_, log_, *mission_, std::move(hooks));
  mission_->attach_facility(*facility_, s_->rlcc, s_->cooling ? s_->cooling->crews : 0,
                            Facility::extra_causes(*s_));
  install_health_hooks(); // every target exists from here on
  facility_->start();
}

void Replica::install_health_hooks() {
  alloc_.set_change_hook([this](int g) {
    cluster_.touch(g, queue_.now()); // its category may change with or without a new holder
    placement_.set_owner(g, alloc_.owner(hardware::GpuIndex{g}).value());
  });
  placement_.add_owner_hook([this](int g, int from, int to) { on_owner_change(g, from, to); });
  health_.set_transition_hook([this](int g, bool up) { on_health_change(g, up); });
  alloc_.set_move_hook([this](int job, const std::string& kind, const std::string& from,
                              const std::string& to) {
    log_.add({queue_.now(), kind, to, kind == "gpu_swap" ? "gpu" : "domain",
              s_->jobs[static_cast<std::size_t>(job)].name, "replaces " + from});
    if (kind == "domain_swap") {
      ++result_.domain_swaps;
      if (spans_->has_fabric()) spans_->record(job, alloc_.job_gpus(job)); // no copy of 10^4 GPUs per swap
    }
    paces_.update(false); // the job may have moved onto or off slow GPUs, lost bandwidth or degraded NVLink
  });
}

void Replica::add_workloads_to_scheduler() {
  // The scheduler places training jobs as they arrive; services take their own domains.
  for (std::size_t j = 0; j < s_->jobs.size(); ++j) {
    const auto& spec = s_->jobs[j];
    sched::JobRequest req;
    req.name = spec.name;
    req.priority = spec.priority;
    req.arrival = sim::hours_to_ticks(spec.arrival_h);
    req.gpus = spec.gpus;
    req.min_gpus = static_cast<int>(std::ceil(spec.gpus * spec.min_gpus_frac));
    if (auto* job = workloads_.training(static_cast<int>(j))) {
      req.control.place = [this, job, j](int gpus) {
        spans_->record(static_cast<int>(j), alloc_.job_gpus(static_cast<int>(j)));
        job->place(gpus);
        paces_.update(false); // its pace on the GPUs it got (slow GPUs, degraded links, placement)
      };
      req.control.request_stop = [job](std::function<void()> stopped) {
        job->request_stop(std::move(stopped));
      };
      req.control.release = [job] { job->release(); };
      req.control.resize = [this, job, j](int gpus) {
        spans_->record(static_cast<int>(j), alloc_.job_gpus(static_cast<int>(j)));
        job->resize(gpus);
        paces_.update(false);
      };
      job->set_completion_hook([this, j] {
        // queued training jobs first, then services short of GPUs
        scheduler_.completed(sched::JobId{static_cast<int>(j)});
        for (auto* sv : workloads_.services())
          sv->on_capacity_changed();
        if (s_->end_when_jobs_done) end_if_jobs_done();
        if (paces_.sharing() && s_->fabric->shared) paces_.update(false); // its traffic leaves the shared fabric
        else if (paces_.sharing()) paces_.share();                          // and the links' utilisation
      });
    } else {
      req.external = true;
    }
    scheduler_.add(std::move(req));
  }
}

void Replica::register_gauges() {
  // Cluster gauges and each workload's state, sampled together on a fixed grid (names interned once).
  const std::string domain_word = layout_->kind() == hardware::RackKind::NVL72 ? "racks" : "nodes";
  const sim::Name cluster("cluster");
  const auto& census = alloc_.census();
  gauges_.add(cluster, "healthy_gpus",
              [this](sim::Tick) { return double(layout_->gpus() - health_.down_gpus()); });
  gauges_.add(cluster, "schedulable_" + domain_word,
              [this](sim::Tick) { return double(alloc_.schedulable_domains()); });
  gauges_.add(cluster, "repairs_queued", [this](sim::Tick) { return double(mission_->queued_repairs()); });
  gauges_.add(cluster, "healthy_production_gpus",
              [&census](sim::Tick) { return double(census.healthy_allocated_gpus); });
  for (std::size_t st = 0; st < sched::Allocator::DOMAIN_STATE_NAMES.size(); ++st)
    gauges_.add(cluster, domain_word + "_" + sched::Allocator::DOMAIN_STATE_NAMES[st],
                [&census, st](sim::Tick) { return double(census.domain_states[st]); });
  gauges_.add(cluster, "fragmentation_frac", [&census](sim::Tick) {
    const auto [stranded, free_gpus] = census.fragmentation;
    return free_gpus > 0 ? static_cast<double>(stranded) / free_gpus : 0.0;
  });
  gauges_.add(cluster, "queued_jobs", [this](sim::Tick) { return double(scheduler_.queued()); });
  for (const auto* job : workloads_.trainings()) {
    const sim::Name name(job->spec().name);
    gauges_.add(name, "training", [job](sim::Tick) { return job->training() ? 1.0 : 0.0; });
    gauges_.add(name, "gpus", [job](sim::Tick) { return double(job->gpus()); });
    if (job->spec().step_time_s > 0) // a job without a step time has no step to sample
      gauges_.add(name, "step_time_s",
                  [job](sim::Tick) { return sim::to_seconds(job->timing().step) * job->slowdown(); });
  }
  for (const auto* service : workloads_.services()) {
    const sim::Name name(service->spec().name);
    gauges_.add(name, "demand_tokens_per_s",
                [service](sim::Tick now) { return service->demand_tokens_per_s(now); });
    gauges_.add(name, "serving_gpus", [service](sim::Tick) { return double(service->serving_gpus()); });
  }
  if (fabric_) // GPUs reachable with less than their full scale-out bandwidth
    gauges_.add(cluster, "degraded_bw_gpus",
                [this](sim::Tick) { return double(fabric_->degraded_bw_gpus()); });

  sample_every_ = sim::to_ticks(s_->output.timeseries_interval_s);
  if (sample_every_ > 0) queue_.at(0, [this] { sample(); });
  progress_every_ = std::max<sim::Tick>(1, end_ / 200); // a fraction published about 200 times
  if (progress_) queue_.at(0, [this] { tick_progress(); });
}

void Replica::sample() {
  gauges_.sample(queue_.now(), log_);
  if (queue_.now() + sample_every_ <= end_) queue_.after(sample_every_, [this] { sample(); });
}

void Replica::tick_progress() {
  progress_(static_cast<double>(queue_.now()) / static_cast<double>(end_));
  if (queue_.now() + progress_every_ < end_) queue_.after(progress_every_, [this] { tick_progress(); });
}

// --- Queries ----------------------------------------------------------------------------------------

const failure::FailureModeSpec& Replica::mode_of(const failure::Failure& f) const {
  return s_->failures.modes[static_cast<std::size_t>(f.mode)];
}

bool Replica::held_by_recovering_jobs(hardware::GpuRange gpus) const {
  bool held = false;
  for (int g = gpus.first; g < gpus.end(); ++g) {
    const int owner = placement_.owner(g);
    if (owner < 0) continue; // idle or spare: it does not decide
    const auto* job = workloads_.training(owner);
    if (!job || !job->recovering()) return false; // a service's, or a job's that is not recovering
    held = true;
  }
  return held;
}

std::string Replica::component_name(const failure::Failure& f) const {
  const auto& m = mode_of(f);
  return domain_of(m).unit_name(m, f.unit);
}

// --- Reactions --------------------------------------------------------------------------------------

void Replica::on_owner_change(int g, int from, int to) { facility_->on_owner_change(g, from, to); }

void Replica::on_health_change(int g, bool up) {
  if (const int owner = placement_.owner(g); owner >= 0 && workloads_.service(owner)) services_recount_.request();
  rack_avail_.on_health_change(layout_->rack_of(g), up, queue_.now());
  alloc_.on_health_change(g, up);
  cluster_.touch(g, queue_.now());
  facility_->on_health_change(g, up);
}

void Replica::services_changed() { // a service replaces down GPUs from spares at once, and recounts
  for (auto* sv : workloads_.services()) {
    alloc_.recover(sv->job());
    sv->on_gpus_changed();
  }
}

void Replica::notify_capacity() {
  services_changed();
  for (auto* sv : workloads_.services()) // a service short of what it wants takes freed domains first
    sv->on_capacity_changed();
  for (auto* job : workloads_.trainings()) // returned capacity goes to waiting jobs in scenario order
    job->on_capacity_changed();
  scheduler_.capacity_changed(); // then to queued jobs
}

workload::Pace Replica::conditions(int job, const workload::JobPace& pace, const workload::Pace& last) const {
  const auto j = static_cast<std::size_t>(job);
  const auto owner = [this](int g) { return placement_.owner(g); };
  workload::Pace p;
  if (fabric_) p.bw = fabric_->job_bw(job);
  if (p.bw <= 0) return p; // GPUs there are cut off: the job is interrupted, not slowed
  // The placement class of a model job at full size (a job released, or shrunk below its parallelism's
  // GPUs, keeps the last one: its step is not re-derived for a size it does not run).
  if (pace.on_fabric()) {
    p.placement = alloc_.job_gpu_count(job) == s_->jobs[j].gpus ? fabric_->placement_key(job) : last.placement;
    p.leaf_bw = fabric_->job_leaf_bw(job);
  }
  p.clock = degraded_.job_clock(job, owner, facility_->job_clock(job)); // throttling, caps, stragglers
  p.nvlink = degraded_.job_nvlink(job, [this](int d) { return alloc_.domain_job(d); });
  return p;
}

bool Replica::at_full_size(int job) const {
  return alloc_.job_gpu_count(job) == s_->jobs[static_cast<std::size_t>(job)].gpus;
}

std::vector<int> Replica::gpus(int job) const { return alloc_.job_gpus(job); }

void Replica::fabric_changed(const fabric::Element& e, bool failed, std::vector<int>& cut) {
  newly_cut_.clear();
  fabric_->element_changed(e);
  if (auto* sharing = paces_.sharing()) sharing->capacities_changed();
  paces_.update(failed);
  cut.insert(cut.end(), newly_cut_.begin(), newly_cut_.end());
  newly_cut_.clear();
}

void Replica::interrupt(const failure::Failure& f, const std::vector<int>& owners, const std::vector<int>& hit) {
  for (int j : owners) { // a training job is interrupted; a service serves on fewer GPUs until replaced
    auto* job = workloads_.training(j);
    if (!job || !job->wants_ranks()) {
      workloads_[j].on_failure(f.id, f.mode);
      continue;
    }
    // its recovery strategy decides from the ranks of the struck GPUs it holds
    job->on_struck(f.id, f.mode, alloc_.ranks_held(sched::JobId{j}, hit));
  }
}

std::vector<workload::TrainingJob*> Replica::training_holders(hardware::GpuRange gpus) const {
  std::vector<workload::TrainingJob*> holders; // training jobs stop at a checkpoint; a service just moves
  for (int j : placement_.owners_in(gpus))
    if (auto* job = workloads_.training(j)) holders.push_back(job);
  return holders;
}

void Replica::on_strike(const failure::Failure& f) {
  const auto& m = mode_of(f);
  failure::FailureDomain& domain = domain_of(m);
  cut_.clear();
  if (f.gpus.count > 0) rack_avail_.count_failure(layout_->rack_of(f.gpus.first), layout_->rack_of(f.gpus.end() - 1));
  std::vector<int> struck;
  if (m.takes_down()) struck = placement_.owners_in(f.gpus);
  domain.strike(m, f, cut_); // a fabric element or a rack's power: GPUs cut off are down now
  if (!cut_.empty()) {
    for (int g : cut_)
      if (const int owner = placement_.owner(g); owner >= 0) struck.push_back(owner);
    std::sort(struck.begin(), struck.end());
    struck.erase(std::unique(struck.begin(), struck.end()), struck.end());
  }
  if (m.kind == failure::FaultKind::GRAY) {
    degraded_.slow(f.gpus, 1.0 / m.gray_slowdown);
    paces_.update(false);
  }
  if (m.nvlink_degraded_frac > 0) {
    degraded_.degrade_nvlink(layout_->domain_of(f.gpus.first), m.nvlink_degraded_frac);
    paces_.update(false);
  }
  std::vector<int> hit(cut_.begin(), cut_.end());
  if (m.takes_down())
    for (int g = f.gpus.first; g < f.gpus.end(); ++g)
      hit.push_back(g);
  interrupt(f, struck, hit);
  mission_->on_failure(f);
}

void Replica::on_taken_down(const failure::Failure& f) { // a gray fault caught, a latent one failing
  const bool slowed = degraded_.clear_slow(f.gpus);
  std::vector<int> hit;
  for (int g = f.gpus.first; g < f.gpus.end(); ++g)
    hit.push_back(g);
  interrupt(f, placement_.owners_in(f.gpus), hit);
  if (slowed) paces_.update(false);
}

void Replica::on_detected(const failure::Failure& f) {
  for (auto* job : workloads_.trainings())
    job->on_failure_detected(f.id);
  services_changed();
}

void Replica::on_repaired(const failure::Failure& f) {
  const auto& m = mode_of(f);
  domain_of(m).restore(m, f);
  if (m.kind == failure::FaultKind::GRAY && degraded_.clear_slow(f.gpus)) paces_.update(false);
  if (m.nvlink_degraded_frac > 0 && degraded_.restore_nvlink(layout_->domain_of(f.gpus.first)))
    paces_.update(false);
  notify_capacity();
}

void Replica::end_if_jobs_done() { // end_when jobs_done: the run ends with the last job with work_h
  for (const auto* job : workloads_.trainings())
    if (job->spec().work_h > 0 && !job->done()) return;
  queue_.stop();
}

// --- Run and results --------------------------------------------------------------------------------

ledger::ReplicaResult Replica::run() {
  for (auto* sv : workloads_.services()) // production serving first: training gets what is left, then lends
    sv->start();
  scheduler_.start();
  injector_->start();
  mission_->start();
  if (storage_)
    world_->platform()->run_until(end_); // checkpoint flows interleave with the queue's events
  else
    queue_.run_until(end_);
  if (queue_.stopped()) { // end_when jobs_done: every account closes at the last completion
    end_ = queue_.now();
    result_.duration = end_;
  }
  for (auto* job : workloads_.trainings())
    job->finish();
  paces_.finish(end_);
  for (auto* sv : workloads_.services())
    sv->finish();
  cluster_.finish(end_);
  check_conservation();
  collect_results();
  sort_events();
  return std::move(result_);
}

} // namespace dcsim
