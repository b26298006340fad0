// The simulated datacenter of one scenario: what is built once per process (the layout, the SimGrid
// platform with the fabric and the storage network when the scenario has them, model jobs' healthy
// steps, job timing and checkpoint plans), and the composition of every model area for one replica.
//
// Building the fabric's platform (10^5 GPU hosts) costs a second; running a replica costs milliseconds.
// A World is therefore built once, and replicas run in forked children (sim::ProcessPool), each calling
// run_replica() exactly once. A replica runs its own event queue, bound to SimGrid's clock when it has
// storage flows (checkpoint drains and restores, storage/storage_traffic.hpp); SimGrid also gives the
// rates of a model job's flows on the fabric (sim/platform.hpp says what SimGrid computes, and what not).
//
// Wiring of one replica (callbacks, so that earlier areas never include later ones):
//   FailureInjector ─failure─▶ jobs owning a struck GPU (interruption) ─▶ MissionControl (detection)
//   MissionControl ─detected─▶ jobs (recover: Allocator swaps in spares) ; ─repaired─▶ jobs (capacity)
//   GpuHealth transitions ─▶ Allocator domain counts, ClusterLedger
// Fabric faults (scenarios with a fabric):
//   failure of a NIC port, link, leaf, spine or core ─▶ FabricPlatform (SimGrid link capacities)
//     GPUs left with no path (cut off)    ─▶ down in GpuHealth until the element is back: jobs holding
//                                            them are interrupted and recover as from a GPU failure
//     GPUs left with a share f < 1         ─▶ each job's pace (below); a new fault first stalls the
//                                            job for the fabric's reroute_s
// Cooling and power (models/facility.hpp: Facility owns cooling loops, power, Racky; Mission Control
// detects and repairs cooling faults with RLCC workflows whose physical side the Facility supplies):
//   cooling failure modes ─▶ Facility (emergency shutdown; at detection, isolation: GPUs down in
//                            GpuHealth, jobs interrupted; planned drains: jobs hold() at a checkpoint)
//   throttled racks, power caps ─▶ Facility::job_clock ─▶ each job's pace (below)
// A job's pace comes from one function of both its slowest GPU's scale-out bandwidth share b and its
// clock fraction f: model jobs ask the step model (scale-out bandwidth × b, StepModel::evaluate(f));
// measured jobs stretch their compute share by 1/f and their scale-out share c = scaleout_comm_frac by
// 1/b: step·((1 − c)/f + c/b). The extra time over the healthy step is `degraded`.
#pragma once

#include "models/cost/run_cost.hpp"
#include "models/fabric/fabric_comm_model.hpp"
#include "models/fabric/fabric_platform.hpp"
#include "models/hardware/layout.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/scenario.hpp"
#include "models/storage/checkpoint_plan.hpp"
#include "models/storage/storage_network.hpp"
#include "models/workload/step_model.hpp"
#include "models/workload/training_job.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace dcsim {

class World {
public:
  /// Builds the fabric's platform when the scenario has a fabric. One World per process.
  explicit World(const Scenario& scenario);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const Scenario& scenario() const { return scenario_; }
  const hardware::Layout& layout() const { return layout_; }
  /// The fabric, when the scenario has one.
  const fabric::FabricPlatform* fabric() const { return fabric_.get(); }
  const fabric::ClosPlan* clos_plan() const { return plan_.get(); }
  /// Derived timing of each job (checkpoint interval resolved, rounded to steps).
  const std::vector<workload::JobTiming>& job_timing() const { return timing_; }
  /// Expected failure rate over each job's initial GPUs, per hour.
  const std::vector<double>& job_failure_rate_per_h() const { return job_rate_per_h_; }
  /// Per job: its checkpoint's plan over the storage tiers (nullopt: no tiers, or a service).
  const std::optional<storage::CheckpointPlan>& checkpoint_plan(int job) const {
    return checkpoint_plans_.at(static_cast<std::size_t>(job));
  }
  /// The healthy step of a job described by a model (its GPUs placed alone on the healthy cluster, the
  /// cross-domain collectives played on the fabric when there is one); nullopt for other jobs.
  const std::optional<workload::StepBreakdown>& healthy_step(int job) const {
    return healthy_steps_.at(static_cast<std::size_t>(job));
  }
  /// The fabric communication model of a job (nullptr without a fabric or a model): its cache holds
  /// the probes played so far.
  const fabric::FabricCommModel* fabric_comm(int job) const { return fabric_comms_.at(static_cast<std::size_t>(job)).get(); }

  /// Population of each failure mode (units it strikes).
  const std::vector<int>& mode_units() const { return mode_units_; }
  /// The healthy step of each job, s (the slowdown's reference).
  double healthy_step_s(int job) const { return healthy_step_s_.at(static_cast<std::size_t>(job)); }
  /// The fabric, to fail and restore its elements (a replica's, in its own process).
  fabric::FabricPlatform& fabric_platform() { return *fabric_; }

  /// The storage network (jobs with checkpoint tiers; nullptr without) and the platform it is in.
  const storage::StorageNetwork* storage_network() const { return storage_.get(); }
  sim::Platform* platform() { return fabric_ ? &fabric_->platform() : own_platform_.get(); }
  const std::vector<std::optional<storage::CheckpointPlan>>& checkpoint_plans() const { return checkpoint_plans_; }

  /// The design's prices and priced bill (models/cost/run_cost.hpp); nullptr without a /cost block.
  const cost::CostModel* cost() const { return cost_.get(); }

  /// Runs replica `replica` to the scenario's end. At most once per process.
  ledger::ReplicaResult run_replica(int replica, const std::function<void(double)>& progress = {});

private:
  Scenario scenario_;
  hardware::Layout layout_;
  std::unique_ptr<fabric::ClosPlan> plan_;
  std::unique_ptr<fabric::ClosGraph> graph_;
  std::unique_ptr<fabric::FabricPlatform> fabric_;
  std::unique_ptr<sim::Platform> own_platform_; ///< the storage network's, without a fabric
  std::unique_ptr<storage::StorageNetwork> storage_;
  std::vector<int> mode_units_;           ///< population of each failure mode
  std::vector<double> healthy_step_s_;    ///< per job
  std::vector<std::optional<workload::StepBreakdown>> healthy_steps_;          ///< per job: model jobs
  std::vector<std::unique_ptr<fabric::FabricCommModel>> fabric_comms_;        ///< per job: model jobs on a fabric
  std::vector<workload::JobTiming> timing_;
  std::vector<double> job_rate_per_h_;
  std::vector<std::optional<storage::CheckpointPlan>> checkpoint_plans_;
  std::unique_ptr<cost::CostModel> cost_;
  bool ran_ = false;

  // Construction, in order.
  void build_fabric_and_cost();
  void derive_steps_without_fabric();
  std::vector<int> placed_alone(const workload::JobSpec& spec) const; ///< the job's GPUs, alone on the cluster
  void derive_step_on_fabric(std::size_t job, const std::vector<int>& gpus);
  /// A job's timing: its step, checkpoint interval and write (from its checkpoint plan when it has
  /// storage tiers), restart and planned stops.
  workload::JobTiming timing_of(const workload::JobSpec& spec, double rate_per_h,
                                const std::optional<storage::CheckpointPlan>& plan) const;
};

} // namespace dcsim
