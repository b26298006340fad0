// One simulated history of a World: the parts of a replica, wired together, run to the scenario's end.
//
// Parts (each engine-free and tested on its own, but for the event queue's clock):
//   GpuHealth          which GPUs are up                      Allocator      who holds which GPU
//   PlacementIndex     each workload's GPUs per rack / leaf   RackAvailability  down GPU-time per rack
//   ClusterLedger      GPU-time by cluster category           Scheduler      arrivals, queue, preemption
//   Workloads          training jobs and inference services, one container, one interface
//   FailureInjector    strikes                                MissionControl detection, repairs, drains
//   FabricTracker      fabric state as jobs see it            Degradations   gray GPUs, degraded NVLink
//   PaceKeeper         jobs' slowdowns from all of the above  Facility       cooling, power physics
//   GaugeSampler       the time series                        EventLog       the one sink: events and samples
// Wiring (the replica's methods; every hook is installed once its target exists):
//   injector ─strike─▶ on_strike, one path for every domain: the mode's failure domain strikes (a fabric
//                      element or a rack's power lost: GPUs cut off go down; a cooling fault: Mission
//                      Control records it, then the Facility applies its physics) │ gray: slow GPUs │
//                      NVLink degraded ─▶ jobs holding struck or cut-off GPUs interrupted ─▶
//                      MissionControl (detection, repair: crews and pipelines, or for cooling faults RLCC
//                      workflows whose physical side the Facility supplies)
//   MissionControl ─detected─▶ jobs ; ─repaired─▶ the domain restores the unit, slow GPUs cleared ─▶ capacity
//   GpuHealth transition ─▶ allocator, ledger, rack availability, facility, services' recount
//   Allocator owner change ─▶ ledger ; placement index ─▶ (counts) fabric tracker, facility ; moves ─▶ paces
//   anything that changes a job's GPUs' state ─▶ PaceKeeper::update (reads conditions() and the rest of
//                      its Site here) ─▶ TrainingJob::set_slowdown
#pragma once

#include "models/fabric/fabric_tracker.hpp"
#include "models/facility.hpp"
#include "models/failure/degradations.hpp"
#include "models/failure/failure_domain.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/hardware/placement_index.hpp"
#include "models/ledger/cluster_ledger.hpp"
#include "models/ledger/gauge_sampler.hpp"
#include "models/ledger/rack_availability.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/ops/mission_control.hpp"
#include "models/sched/allocator.hpp"
#include "models/sched/cold_spares.hpp"
#include "models/sched/job_span.hpp"
#include "sim/once_per_date.hpp"
#include "models/sched/scheduler.hpp"
#include "models/storage/fabric_storage.hpp"
#include "models/storage/storage_traffic.hpp"
#include "models/workload/inference_service.hpp"
#include "models/workload/fabric_sharing.hpp"
#include "models/workload/step_record.hpp"
#include "models/workload/job_pace.hpp"
#include "models/workload/pace_keeper.hpp"
#include "models/workload/drains.hpp"
#include "models/workload/training_job.hpp"
#include "models/workload/workload.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace dcsim {

class World;

class Replica : private workload::PaceKeeper::Site, private workload::Drains::Site {
public:
  /// `progress(fraction)` is called about 200 times over the run when set.
  Replica(World& world, int replica, std::function<void(double)> progress);
  ~Replica() override;
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  /// Runs to the scenario's end and returns what happened. Once.
  ledger::ReplicaResult run();

private:
  World* world_;
  const Scenario* s_;
  const hardware::Layout* layout_;
  std::uint64_t seed_, replica_;
  sim::Tick end_;
  std::function<void(double)> progress_;
  int modes_;

  sim::EventQueue queue_;
  sim::EventLog log_;
  failure::GpuHealth health_;
  sched::Allocator alloc_;
  ledger::ClusterLedger cluster_;
  ledger::RackAvailability rack_avail_;
  /// Who holds which GPU, counted per rack (and, with a fabric, per leaf: the fabric tracker's grouping).
  hardware::PlacementIndex placement_;
  int rack_grouping_ = -1;
  /// Training jobs and services under the allocator's job indices (scenario order).
  workload::Workloads workloads_;
  sched::Scheduler scheduler_;
  workload::PaceKeeper paces_; ///< each training job's slowdown and step records
  workload::Drains drains_{*this, queue_}; ///< planned drains at the holders' next checkpoints
  failure::Degradations degraded_;
  std::unique_ptr<fabric::FabricTracker> fabric_; ///< scenarios with a fabric
  std::unique_ptr<sched::SpanRecorder> spans_;       ///< each job's largest span on the fabric
  std::vector<int> newly_cut_;                    ///< GPUs the last fabric change cut off
  failure::FailureDomains domains_;
  std::vector<int> cut_;                          ///< GPUs the last strike cut off
  std::unique_ptr<ops::MissionControl> mission_;
  std::unique_ptr<failure::FailureInjector> injector_;
  ledger::ReplicaResult result_;
  std::unique_ptr<Facility> facility_;
  std::unique_ptr<storage::StorageTraffic> storage_; ///< checkpoint flows (jobs with storage tiers)
  std::unique_ptr<storage::FabricStorage> fabric_storage_; ///< storage.network converged: hops on the fabric
  ledger::GaugeSampler gauges_;
  sim::Tick sample_every_ = 0, progress_every_ = 1;
  /// A service's GPU changed health: the services recount once, at this date.
  sim::OncePerDate services_recount_{queue_, [this] { services_changed(); }};
  std::unique_ptr<sched::ColdSpares> cold_;

  // Assembly (constructor), in the order the parts schedule their first events.
  void build_jobs();
  void build_paces();
  void build_domains();
  void build_operations();
  void build_facility();
  void add_workloads_to_scheduler();
  void register_gauges();
  void install_health_hooks();

  const failure::FailureModeSpec& mode_of(const failure::Failure& f) const;
  /// Some GPUs of `gpus` are held, all by recovering training jobs (/failures/clock paused_during_recovery).
  bool held_by_recovering_jobs(hardware::GpuRange gpus) const;

  // Reactions.
  void on_health_change(int gpu, bool up);
  void on_owner_change(int gpu, int from, int to);
  void services_changed();
  void notify_capacity();
  void end_if_jobs_done();
  bool recover(int job, sim::Tick& extra);
  // What the pace keeper reads (PaceKeeper::Site).
  workload::Pace conditions(int job, const workload::JobPace& pace, const workload::Pace& last) const override;
  bool at_full_size(int job) const override;
  std::vector<int> gpus(int job) const override;
  bool storage_busy() const override { return fabric_storage_ && fabric_storage_->busy(); }
  void fabric_resolved() override {
    if (fabric_storage_) fabric_storage_->retime(); // converged hops run at what their flows now get
  }
  void fabric_changed(const fabric::Element& e, bool failed, std::vector<int>& cut);
  failure::FailureDomain& domain_of(const failure::FailureModeSpec& mode) const;
  /// Interrupts the jobs `owners` holding GPUs struck by `f` (`hit`: those GPUs); a job whose recovery
  /// strategy wants them (ft_dp) is told their ranks instead, and its strategy decides.
  void interrupt(const failure::Failure& f, const std::vector<int>& owners, const std::vector<int>& hit);
  // What a drain asks (Drains::Site).
  void set_draining(hardware::GpuRange gpus, bool draining) override { alloc_.set_draining(gpus, draining); }
  std::vector<workload::TrainingJob*> training_holders(hardware::GpuRange gpus) const override;
  void drained() override { services_changed(); }
  void on_strike(const failure::Failure& f);
  void on_taken_down(const failure::Failure& f);
  void on_detected(const failure::Failure& f);
  void on_repaired(const failure::Failure& f);
  std::string component_name(const failure::Failure& f) const;
  void sample();
  void tick_progress();

  // Results.
  void check_conservation() const;
  ledger::JobOutcome job_outcome(std::size_t j) const;
  ledger::ServiceOutcome service_outcome(const workload::InferenceService& sv) const;
  void collect_results();
  void sort_events();
};

} // namespace dcsim
