// The facility side of one replica: a thin composition of parts with one job each, and RLCC's physical
// actions on racks. Replica (models/replica.hpp) owns one and calls it from a few hooks; every part is
// engine-free and has its own header (what it owns, equations, units, sources) and unit tests:
//   facility/cooling_plant.hpp    CDU loops, valves, pumps, supply temperature, racks' thermal state
//   facility/facility_power.hpp   IT power, budget and caps, grid events, job clocks, energy meters
//   facility/racky_telemetry.hpp  Racky's cooling gauges and the facility's samplers
//   facility/rack_service.hpp     which racks are powered: emergency shutdowns and returns, isolations,
//                                 planned drains, maintenance waves (RLCC's physical actions)
// Repairs are Mission Control's (ops/mission_control.hpp): it detects cooling faults, draws their repair
// times, runs the RLCC workflows with the RLCC crews and keeps the statistics; the facility applies a
// fault's physics when it strikes and supplies the physical side of its repair (CoolingWorks).
//
//   cooling fault ─strike─▶ Facility::on_failure ─▶ CoolingPlant: flow (valve, pump, CDU) or supply
//                           ─▶ re-solve racks at design load ─▶ throttled set ; cannot cool ─▶ RackService
//                           shutdown ─▶ GPUs down, jobs interrupted
//   Mission Control ─detection─▶ Facility::repair_workflow: leak ─▶ RackService isolates the rack (or loop)
//                                valve ─▶ planned drain (RackService::drain) ─▶ isolate ─▶ service ─▶ ...
//                   ─RLCC workflow done─▶ racks back ; valve, pump, CDU repaired ─▶ CoolingPlant
//   maintenance waves ─▶ Mission Control's RLCC workflows (planned drains, no crew)
//   jobs training / stopped, GPU health, owners, throttling, racks powered ─▶ FacilityPower (touch)
//                           ─▶ settle: caps ─▶ job clocks ─▶ clocks_changed ─▶ replica's paces
//
// Causes: an interruption the facility makes carries an explicit cause, the failure mode whose physics
// did it (while a fault strikes) or the extra cause "thermal_shutdown" (index = number of modes: the
// supply temperature, a rack back on a loop that cannot cool it, the state at t = 0).
#pragma once

#include "models/facility/cooling_plant.hpp"
#include "models/facility/facility_power.hpp"
#include "models/facility/rack_service.hpp"
#include "models/facility/racky_telemetry.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/hardware/placement_index.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/ops/mission_control.hpp"
#include "models/ops/rlcc.hpp"
#include "models/scenario.hpp"
#include "models/sched/allocator.hpp"
#include "models/workload/workload.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dcsim {

class Facility final : public ops::CoolingWorks {
public:
  struct Hooks {
    std::function<void()> clocks_changed;   ///< some job_clock() changed
    std::function<void()> capacity_changed; ///< GPUs came back (jobs waiting may restart)
  };

  Facility(const Scenario& scenario, const hardware::Layout& layout, failure::GpuHealth& health,
           sched::Allocator& alloc, const hardware::PlacementIndex& placement, int rack_grouping,
           workload::Workloads& workloads, sim::EventQueue& queue, sim::EventLog& log,
           ops::MissionControl& mission, Hooks hooks);
  ~Facility() override;

  /// Interruption causes beyond the scenario's failure modes: "thermal_shutdown" (a rack shut down by
  /// the supply temperature alone, no failure involved) when the scenario has cooling.
  static int extra_causes(const Scenario& scenario) { return scenario.cooling ? 1 : 0; }
  static std::string extra_cause_name(int k);
  static std::string extra_cause_domain(int k); ///< its failure domain (losses.csv)

  /// Initial state, waves, grid events, samplers. Call once the jobs exist, before they start.
  void start();

  // Inputs from the composition.
  void on_failure(const failure::Failure& f);      ///< a cooling mode struck: its physics
  void on_owner_change(int gpu, int from, int to); ///< after the placement index counted it
  void on_health_change(int gpu, bool up);
  void on_training_changed(int job, bool training) { power_->set_training(job, training); }
  void on_serving_load(int job, double busy_gpus) { power_->set_serving_load(job, busy_gpus); }
  void on_job_stopped(int job) { service_->job_stopped(job); }

  /// The clock fraction job `job` runs at (1: not throttled or capped).
  double job_clock(int job) const { return power_->job_clock(job); }

  /// Closes the meters at `end` and writes energy and the cooling and power metrics into `result`.
  void finish(sim::Tick end, ledger::ReplicaResult& result) {
    power_->finish(end, plant_ != nullptr, result);
  }

  // ops::CoolingWorks: the physical side of cooling repairs, for Mission Control.
  bool ends_by_itself(const failure::Failure& f) const override;
  void ended(const failure::Failure& f) override;
  ops::Rlcc::Workflow repair_workflow(const failure::Failure& f) override;
  void drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained) override {
    service_->drain(racks, coolant, std::move(drained));
  }

private:
  const Scenario* s_;
  const hardware::Layout* layout_;
  failure::GpuHealth* health_;
  const hardware::PlacementIndex* placement_;
  workload::Workloads* workloads_;
  sim::EventQueue* queue_;
  int modes_ = 0;

  std::unique_ptr<facility::CoolingPlant> plant_; ///< null without cooling
  std::unique_ptr<facility::RackService> service_;
  std::unique_ptr<facility::FacilityPower> power_;
  std::unique_ptr<facility::RackyTelemetry> racky_; ///< null without cooling

  const failure::FailureModeSpec& mode(int m) const {
    return s_->failures.modes[static_cast<std::size_t>(m)];
  }
  /// The extra cause "thermal_shutdown": the first index after the modes.
  int thermal_cause() const { return modes_; }
};

} // namespace dcsim
