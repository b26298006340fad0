// The facility's power part: IT power, the budget and its caps, grid events, the job clocks they set, and
// the energy meters. One of the parts Facility (models/facility.hpp) wires; engine-free (it schedules on a
// sim::EventQueue and reads the racks through the RackView interface, so tests drive it with a fake).
//
// Owns: healthy GPUs per job and per rack, which jobs train, the caps c_j and clocks of the jobs, the
// available power (budget, cut by a grid event), the jobs paused by a grid event, and the meters (energy
// of the facility and of each workload; isolated, throttled and capped GPU-seconds).
//
// Equations (units W, s, J). With P_idle the idle GPU power and P_busy(f) a busy GPU's at clock f
// (hardware/gpu_power.hpp), P_base the rack base power, G the GPUs per rack, g_jr the GPUs of job j on rack
// r, f_r the throttle clock of rack r (1 unless the cooling plant throttles it), n_j the job's GPUs:
//   D_j(c)  = n_j·(P_busy(c) − P_idle) + Σ_{r throttled} g_jr·(P_busy(min(c, f_r)) − P_busy(c))
//   S_j     = b_j·(P_busy(1) − P_idle)        a service's load: b_j = its serving GPUs × its busy share u_j
//   P_IT    = P_base·(racks powered) + P_idle·(healthy GPUs) + Σ_{j training} D_j(c_j) + Σ_{j service} S_j
//   P_j     = (P_idle + P_base/G)·(healthy GPUs of j) + [j training]·D_j(c_j) + [j service]·S_j
// so a serving GPU draws P_idle + (P_busy(1) − P_idle)·u_j: the linear utilisation model of server power
// (X. Fan, W.-D. Weber, L. A. Barroso, "Power provisioning for a warehouse-sized computer", ISCA 2007:
// P(u) = P_idle + (P_busy − P_idle)·u), with u_j the share of the pool's capacity at the TPOT SLO point
// the load uses (set by the service: models/workload/inference_service.hpp). Services are never capped.
//   clock_j = min(c_j, min{ f_r : rack r holds GPUs of job j and is throttled })
// Caps: none while P_IT(1) ≤ P_avail; else power/power_capper.hpp's uniform or priority policy. A grid event
// sets P_avail = P_ref·(1 − cut) with P_ref the budget or the racks' design power (power/spec.hpp); under
// the "pause" policy the latest training jobs stop at a checkpoint until the others fit uncapped.
// Recomputed once per date at which anything changed (a zero-delay "settle" event after touch()), and
// integrated as energy between dates (power::EnergyMeter): nothing is done per GPU-second.
// Source of the power figures: the scenario's power spec (docs/scenario-reference.md, /power).
#pragma once

#include "models/hardware/gpu_power.hpp"
#include "models/hardware/placement_index.hpp"
#include "models/hardware/spec.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/power/power_capper.hpp"
#include "models/power/spec.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcsim::facility {

/// What the power part reads of the racks (the cooling plant's throttling, the racks powered, GPU health).
class RackView {
public:
  virtual ~RackView() = default;
  virtual int powered_racks() const = 0;
  virtual bool powered(int rack) const = 0;
  virtual int up_gpus() const = 0;                          ///< healthy GPUs of the cluster
  virtual const std::set<int>& throttled_racks() const = 0; ///< racks with f_r < 1
  virtual double rack_clock_frac(int rack) const = 0;       ///< f_r of a throttled rack
};

/// A workload as the power part sees it (scenario order).
struct WorkloadShape {
  std::string name;
  int gpus = 0;
  bool training = true; ///< false: an inference service (never paused by a grid event, no job outcome)
};

class FacilityPower {
public:
  struct Hooks {
    std::function<void()> clocks_changed; ///< some job_clock() changed
    std::function<void(int job)> hold;    ///< a grid event pauses training job `job` at a checkpoint
    std::function<void(int job)> unhold;
  };

  FacilityPower(const power::PowerSpec& power, const hardware::HardwareSpec& hardware, int racks,
                int gpus_per_rack, std::vector<WorkloadShape> workloads,
                const hardware::PlacementIndex& placement, int rack_grouping, const RackView& racks_view,
                sim::EventQueue& queue, sim::EventLog& log, Hooks hooks);

  // Counters (inputs from the composition).
  void gpu_placed(int owner) {
    ++job_up_[static_cast<std::size_t>(owner)];
  } ///< initial placement, healthy GPU
  void owner_changed(bool gpu_up, int from, int to);
  void health_changed(int rack, int owner, bool up);
  void set_training(int job, bool training);
  /// A service's busy GPU equivalent b_j (serving GPUs × busy share): its load power S_j.
  void set_serving_load(int job, double busy_gpus);

  /// Schedules the grid events' start and end.
  void schedule_grid_events();
  /// Something changed: settle once at this date (a zero-delay event).
  void touch();
  /// Settles now if a settle is pending (a reader needs current figures).
  void settle_if_pending() {
    if (settle_pending_) settle();
  }

  double job_clock(int job) const { return clock_[static_cast<std::size_t>(job)]; }
  double power_w() const { return total_.power_w(); }
  double throttled_gpus() const { return throttled_gpus_.power_w(); }
  /// Each rack's actual power now, W; optionally its hottest GPU's power and its busy GPUs.
  std::vector<double> rack_power_w(std::vector<double>* hottest_gpu_w = nullptr,
                                   std::vector<int>* busy_gpus = nullptr) const;
  /// The cluster's power gauges (power_kw, and power_budget_kw with a budget or grid events).
  void sample_cluster();

  /// Closes the meters at `end`; writes energy, peak power, each training job's energy (result.jobs holds
  /// the training jobs only, in scenario order) and the isolated, throttled and capped GPU-hours (NaN
  /// where the scenario has no cooling / no budget: `cooling`).
  void finish(sim::Tick end, bool cooling, ledger::ReplicaResult& result);

private:
  const power::PowerSpec* power_;
  const hardware::HardwareSpec* hardware_;
  hardware::GpuPowerCurve gpu_;
  double base_w_;
  int racks_;
  int gpus_per_rack_;
  std::vector<WorkloadShape> workloads_;
  const hardware::PlacementIndex* placement_;
  int rack_grouping_;
  const RackView* view_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Hooks hooks_;

  std::vector<int> job_up_;    ///< healthy GPUs a job holds
  std::vector<int> rack_up_;   ///< healthy GPUs per rack
  std::vector<char> training_; ///< per job
  std::vector<double> serving_busy_; ///< per job: b_j of a service (0 otherwise)
  std::vector<double> cap_;    ///< per job
  std::vector<double> clock_;
  std::optional<double> available_w_; ///< budget (times 1 - cut during a grid event); none: no budget
  bool capping_ = false;
  std::vector<int> paused_; ///< jobs held by the current grid event
  bool settle_pending_ = false;

  power::EnergyMeter total_;
  std::vector<power::EnergyMeter> job_energy_;
  power::EnergyMeter isolated_gpus_, throttled_gpus_, capped_gpus_; ///< GPU-seconds

  int rack_gpus(std::size_t job, int rack) const {
    return placement_->count(rack_grouping_, static_cast<int>(job), rack);
  }
  void settle();
  std::vector<double> caps_within_budget(bool& capping) const;
  double extra_w(int job, double cap) const; ///< D_j at cap
  double it_power_w(const std::vector<double>& caps) const;
  double serving_w(std::size_t job) const { return serving_busy_[job] * (gpu_.busy_w(1.0) - gpu_.idle_w()); } ///< S_j
  void start_grid_event(const power::GridEvent& e);
  void end_grid_event();
};

} // namespace dcsim::facility
