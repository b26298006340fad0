// The facility side of one replica: the physics of liquid cooling (CDU loops, Valvey, Racky), power
// (budget, capping, grid events) and RLCC's physical actions, composed with the jobs, the allocator and
// GPU health. Replica (models/replica.hpp) owns one and calls it from a few hooks; every model it uses is
// engine-free. Repairs are Mission Control's (ops/mission_control.hpp): it detects cooling faults, draws
// their repair times, runs the RLCC workflows with the RLCC crews and keeps the statistics; the facility
// applies a fault's physics when it strikes and supplies the physical side of its repair (CoolingWorks).
//
//   cooling fault ─strike─▶ Facility::on_failure: flow (valve, pump, CDU) or supply (facility water)
//                           ─▶ rack thermal at design load ─▶ throttle clocks ; cannot cool ─▶ shutdown
//   Mission Control ─detection─▶ Facility::repair_workflow: leak ─▶ isolate the rack (or loop) now
//                                valve ─▶ planned drain (Facility::drain) ─▶ isolate ─▶ service ─▶ ...
//                   ─RLCC workflow done─▶ racks back ; valve, pump, CDU repaired ─▶ Mission Control
//   maintenance waves ─▶ Mission Control's RLCC workflows (planned drains, no crew)
//   jobs training / stopped ─▶ power ─▶ budget and grid events ─▶ caps ─▶ job clocks ─▶ replica's paces
//
// Causes: an interruption the facility makes carries an explicit cause, the failure mode whose physics
// did it (while a fault strikes) or the extra cause "thermal_shutdown" (index = number of modes: the
// supply temperature, a rack back on a loop that cannot cool it, the state at t = 0).
//
// Thermal state: each rack is solved at its *design load* (every usable GPU busy, in-rack spares idle,
// base on; cooling/rack_thermal.hpp) with its branch's flow and the loop's supply temperature, whatever
// runs on it: the throttle clock f_r of its GPUs and whether it can be cooled at all depend only on the
// cooling state (flows, supply), never on which job runs where, so jobs starting and stopping cost no
// thermal work and a rack that cannot be cooled at load is kept down rather than started and shut down
// again. Re-solved only when a loop's flow, a branch's valve or the supply temperature changes.
// Throttled racks (f_r < 1) make stragglers: a job's clock is the slowest of its racks' and of its cap:
//   clock_j = min(cap_j, min{ f_r : rack r holds GPUs of job j })
// and the replica sets the job's pace from clock_j (and its scale-out bandwidth).
// Emergency shutdown: a powered rack that cannot be cooled goes down at once (GPUs down, jobs on it
// interrupted as by a failure, detected at once: Racky triggered it); it returns rlcc.burn_in_s after it
// can be cooled again (Mission Control counts these outages under their cause). Isolation (a leak,
// coolant work): the rack (or loop) is off and its branch closed until the RLCC workflow returns it.
// Power (power/spec.hpp): with P_idle the idle GPU power, P_base the rack base power, g_jr the GPUs of job
// j on rack r, and D_j = Σ_r g_jr·(P_busy(min(cap_j, f_r)) − P_idle) the extra power of job j training:
//   P_IT = P_base·(racks powered) + P_idle·(healthy GPUs) + Σ_{j training} D_j
//   P_j  = (P_idle + P_base/G)·(healthy GPUs of j) + [j training]·D_j          (G GPUs per rack)
// recomputed once per date at which anything changed (a zero-delay "settle" event), and integrated as
// energy between dates. Nothing is done per GPU-second or per time step.
#pragma once

#include "models/cooling/coolant_loop.hpp"
#include "models/cooling/supply_profile.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/ops/mission_control.hpp"
#include "models/ops/rlcc.hpp"
#include "models/power/power_capper.hpp"
#include "models/scenario.hpp"
#include "models/sched/allocator.hpp"
#include "models/hardware/placement_index.hpp"
#include "models/workload/inference_service.hpp"
#include "models/workload/training_job.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcsim {

class Facility final : public ops::CoolingWorks {
public:
  struct Hooks {
    std::function<void()> clocks_changed; ///< some job_clock() changed
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

  /// Initial state, waves, grid events, samplers. Call once the jobs exist, before they start.
  void start();

  // Inputs from the composition.
  void on_failure(const failure::Failure& f); ///< a cooling mode struck: its physics
  void on_owner_change(int gpu, int from, int to); ///< after the placement index counted it
  void on_health_change(int gpu, bool up);
  void on_training_changed(int job, bool training);
  void on_job_stopped(int job);

  /// The clock fraction job `job` runs at (1: not throttled or capped).
  double job_clock(int job) const { return clock_[static_cast<std::size_t>(job)]; }

  /// Closes the meters at `end` and writes energy and the cooling and power metrics into `result`.
  void finish(sim::Tick end, ledger::ReplicaResult& result);

  // ops::CoolingWorks: the physical side of cooling repairs, for Mission Control.
  bool ends_by_itself(const failure::Failure& f) const override;
  void ended(const failure::Failure& f) override;
  ops::Rlcc::Workflow repair_workflow(const failure::Failure& f) override;
  void drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained) override;

private:
  struct Drain {
    std::vector<int> racks;
    bool coolant = false;
    std::set<int> waiting; ///< jobs not yet stopped
    std::vector<int> held;
    std::function<void()> drained;
  };

  const Scenario* s_;
  const hardware::Layout* layout_;
  failure::GpuHealth* health_;
  sched::Allocator* alloc_;
  const hardware::PlacementIndex* placement_; ///< per-rack GPUs of each job: its `rack_grouping_`
  int rack_grouping_;
  workload::Workloads* workloads_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  ops::MissionControl* mission_;
  Hooks hooks_;
  const cooling::CoolingSpec* cooling_; ///< null without cooling
  hardware::GpuPowerCurve gpu_;
  double base_w_ = 0;
  int racks_ = 0;
  int gpus_per_rack_ = 0;
  int modes_ = 0;

  std::unique_ptr<cooling::CoolantLoops> loops_;
  std::unique_ptr<cooling::SupplyProfile> profile_;

  // Health, per rack and job.
  std::vector<int> job_up_;                     ///< healthy GPUs a job holds
  std::vector<int> rack_up_;                    ///< healthy GPUs per rack
  std::vector<char> training_;                  ///< per job

  // Cooling state, per rack.
  std::vector<cooling::RackThermal> thermal_; ///< at design load
  std::set<int> throttled_;                   ///< racks with f_r < 1
  std::vector<int> off_;                      ///< cooling isolations holding the rack off
  std::vector<char> shutdown_;                ///< emergency shutdown
  std::vector<int> shutdown_cause_;
  std::vector<sim::Tick> shutdown_since_;
  std::vector<sim::EventQueue::EventId> return_at_;
  std::vector<int> leaks_;          ///< active leaks on the branch (gauge)
  std::vector<int> loop_throttled_; ///< throttled racks per loop (events)
  int excursions_ = 0;
  double supply_c_ = 0;
  std::uint64_t next_syn_id_ = 1ull << 62; ///< failure ids of interruptions the facility makes

  // Power state.
  int powered_racks_ = 0;
  std::vector<double> cap_; ///< per job
  std::vector<double> clock_;
  std::optional<double> available_w_; ///< budget (times 1 - cut during a grid event); none: no budget
  bool capping_ = false;
  std::vector<int> paused_; ///< jobs held by the current grid event
  bool settle_pending_ = false;

  // Meters.
  power::EnergyMeter total_;
  std::vector<power::EnergyMeter> job_energy_;
  power::EnergyMeter isolated_gpus_, throttled_gpus_, capped_gpus_; ///< GPU-seconds

  // Planned drains in progress (RLCC's drain stage).
  std::map<std::uint64_t, Drain> drains_;
  std::uint64_t next_drain_id_ = 0;

  const failure::FailureModeSpec& mode(int m) const {
    return s_->failures.modes[static_cast<std::size_t>(m)];
  }
  int loops() const { return loops_ ? loops_->loops() : 0; }
  /// The extra cause "thermal_shutdown": the first index after the modes.
  int thermal_cause() const { return modes_; }
  hardware::GpuRange rack_range(int rack) const { return {rack * gpus_per_rack_, gpus_per_rack_}; }
  bool powered(int rack) const {
    return off_[static_cast<std::size_t>(rack)] == 0 && !shutdown_[static_cast<std::size_t>(rack)];
  }
  std::vector<int> unit_racks(int rack) const; ///< the rack, or its loop's racks under loop isolation
  std::vector<int> loop_rack_list(int loop) const;
  std::string racks_name(const std::vector<int>& racks) const;
  int rack_gpus(std::size_t job, int rack) const {
    return placement_->count(rack_grouping_, static_cast<int>(job), rack);
  }
  std::vector<int> training_jobs_on(const std::vector<int>& racks) const; ///< in scenario order

  // Thermal.
  cooling::RackLoad design_load() const;
  // `cause`: the cause of the emergency shutdowns a change makes (a mode index, or thermal_cause()).
  void resolve(const std::vector<int>& racks, int cause);
  void resolve_all(int cause);
  void resolve_loop(int loop, int cause) { resolve(loop_rack_list(loop), cause); }
  void update_supply(bool force, int cause); ///< force: re-solve and schedule the profile's next step
  void shutdown_check(const std::vector<int>& racks, int cause);
  void try_return(int rack);

  // Racks in and out of service.
  void take_out(const std::vector<int>& racks, bool coolant, bool interrupt_jobs, int cause,
                const std::string& why);
  void put_back(const std::vector<int>& racks, bool coolant);
  void interrupt(const std::vector<int>& racks, int cause);

  std::string unit_name(const failure::Failure& f) const;

  // Power.
  void touch(); ///< something changed: settle at this date
  void settle();
  double extra_w(int job, double cap) const; ///< D_j at cap
  double it_power_w(const std::vector<double>& caps) const;
  void start_grid_event(const power::GridEvent& e);
  void end_grid_event(const power::GridEvent& e);
  void schedule_waves();

  // Racky.
  void sample_cluster();
  void sample_loops();
  /// Each rack's actual power now, W; optionally its hottest GPU's power and its busy GPUs.
  std::vector<double> rack_power_w(std::vector<double>* hottest_gpu_w = nullptr,
                                   std::vector<int>* busy_gpus = nullptr) const;
};

} // namespace dcsim
