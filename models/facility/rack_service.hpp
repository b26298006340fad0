// RLCC's physical actions on racks: which racks are powered and why not. One of the parts Facility
// (models/facility.hpp) wires; engine-free (it schedules returns and wave steps on a sim::EventQueue).
//
// Owns, per rack: the cooling isolations holding it off (a counter: a leak and a wave may overlap), the
// emergency shutdown with its cause and date, the pending return after burn-in; the count of racks
// powered; the planned drains in progress; the ids of the interruptions it makes.
//
//   powered(r) = (isolations holding r = 0) ∧ ¬shutdown(r)
//   emergency shutdown: a powered rack whose thermal solution cannot cool it goes down at once (GPUs down,
//     training jobs on it interrupted and detected at once: Racky triggered it); it returns rlcc.burn_in_s
//     (s) after it can be cooled again. Causes beyond the modes (index ≥ modes) are counted by Mission
//     Control as outages.
//   take_out / put_back: a rack (or loop) out of service for work; with `coolant` its branch is closed and
//     it is unpowered until put back. A rack put back on a loop that cannot cool it is shut down at once.
//   drain: nothing new is placed on the racks (allocator draining), the training jobs there are held at
//     their next checkpoint; once every one has stopped the racks are taken out and `drained` runs.
//   waves (rlcc.waves): racks in index order, racks_per_step at a time (whole loops for coolant waves
//     under loop isolation), one step every every_h from start_h, each an RLCC workflow of Mission Control.
// Sources: ops/rlcc_spec.hpp (the RLCC stages and waves), docs/cooling.md.
#pragma once

#include "models/facility/cooling_plant.hpp"
#include "models/facility/facility_power.hpp"
#include "models/failure/gpu_health.hpp"
#include "models/failure/spec.hpp"
#include "models/hardware/layout.hpp"
#include "models/hardware/placement_index.hpp"
#include "models/ops/mission_control.hpp"
#include "models/ops/rlcc_spec.hpp"
#include "models/sched/allocator.hpp"
#include "models/workload/workload.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dcsim::facility {

class RackService final : public RackView {
public:
  struct Hooks {
    std::function<void()> changed;          ///< power-relevant state changed (the power part settles)
    std::function<void()> capacity_changed; ///< GPUs came back (jobs waiting may restart)
  };

  /// `plant`: null without cooling. `modes`: the scenario's failure modes (causes below their count).
  RackService(const hardware::Layout& layout, CoolingPlant* plant, const ops::RlccSpec& rlcc,
              const std::vector<failure::FailureModeSpec>& modes, failure::GpuHealth& health,
              sched::Allocator& alloc, const hardware::PlacementIndex& placement, int rack_grouping,
              workload::Workloads& workloads, sim::EventQueue& queue, sim::EventLog& log,
              ops::MissionControl& mission, Hooks hooks);

  // RackView
  int powered_racks() const override { return powered_racks_; }
  bool powered(int rack) const override {
    return off_[static_cast<std::size_t>(rack)] == 0 && !shutdown_[static_cast<std::size_t>(rack)];
  }
  int up_gpus() const override { return health_->gpus() - health_->down_gpus(); }
  const std::set<int>& throttled_racks() const override { return plant_ ? plant_->throttled() : none_; }
  double rack_clock_frac(int rack) const override { return plant_->thermal(rack).clock_frac; }

  /// After the cooling plant re-solved `racks`: shut down those that cannot be cooled, schedule the
  /// return of those that can again.
  void shutdown_check(const std::vector<int>& racks, int cause);
  void take_out(const std::vector<int>& racks, bool coolant, bool interrupt_jobs, int cause,
                const std::string& why);
  void put_back(const std::vector<int>& racks, bool coolant);
  void drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained);
  void job_stopped(int job); ///< completes the drains waiting for it
  void schedule_waves();
  /// A rack's name, a loop's when `racks` is a whole loop, or "first..last".
  std::string racks_name(const std::vector<int>& racks) const;

private:
  struct Drain {
    std::vector<int> racks;
    bool coolant = false;
    std::set<int> waiting; ///< jobs not yet stopped
    std::vector<int> held;
    std::function<void()> drained;
  };

  const hardware::Layout* layout_;
  CoolingPlant* plant_;
  const ops::RlccSpec* rlcc_;
  const std::vector<failure::FailureModeSpec>* modes_;
  failure::GpuHealth* health_;
  sched::Allocator* alloc_;
  const hardware::PlacementIndex* placement_;
  int rack_grouping_;
  workload::Workloads* workloads_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  ops::MissionControl* mission_;
  Hooks hooks_;
  int gpus_per_rack_;
  const std::set<int> none_;

  std::vector<int> off_;       ///< cooling isolations holding the rack off
  std::vector<char> shutdown_; ///< emergency shutdown
  std::vector<int> shutdown_cause_;
  std::vector<sim::Tick> shutdown_since_;
  std::vector<sim::EventQueue::EventId> return_at_;
  int powered_racks_ = 0;
  std::uint64_t next_syn_id_ = 1ull << 62; ///< failure ids of interruptions the facility makes
  std::map<std::uint64_t, Drain> drains_;
  std::uint64_t next_drain_id_ = 0;

  int causes() const { return static_cast<int>(modes_->size()); }
  hardware::GpuRange rack_range(int rack) const { return {rack * gpus_per_rack_, gpus_per_rack_}; }
  std::vector<int> training_jobs_on(const std::vector<int>& racks) const; ///< in scenario order
  void interrupt(const std::vector<int>& racks, int cause);
  void try_return(int rack);
  void touch() {
    if (hooks_.changed) hooks_.changed();
  }
  std::vector<std::vector<int>> wave_steps(const ops::WaveSpec& wave) const;
};

} // namespace dcsim::facility
