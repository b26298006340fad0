// Mission Control: detection of failures and the remediation pipeline.
//
//   failure ──detection──▶ detected ──(crew)──▶ repair ──▶ back in service (GPUs up, unit renewed)
// Detection depends on the fault kind (failure/spec.hpp): fail-stop faults after detect_s; hangs when
// a collective times out (operations.collective_timeout_s); gray faults (stragglers) after
// straggler_detect_s when straggler detection is on, never otherwise (the unit is then taken down at
// detection, interrupting its job); latent faults when they turn into a failure (exponential time of
// mean latent_fail_h, stream "latent/<mode>") or when an active health check finds them first: sweeps
// of free units every health_check_interval_h, and the pre-flight check of every job restart.
// Repairs: a mode's fixed/exponential/log-normal repair_h, or the ordered stages of
// operations.repair_pipeline: a stage succeeds with success_frac, else the repair escalates to the
// next stage; a successful stage returns the unit still faulty with escape_frac (it fails again after
// an exponential time of mean escape_refail_h). Stages and fixed repairs that need a crew queue for one
// of repair_crews (0 = unlimited), in request order; a zero-length fixed repair (a software fault)
// needs none and completes at detection, before the jobs hear of it. A drain_rack stage first drains
// the unit's rack: jobs on it stop at their next checkpoint (planned), then the rack is out of service
// for the stage. Repair draws come from "repair/<mode>".
// Lemons: with lemon_retire_failures = n > 0, a unit failing n times within lemon_window_h is retired
// instead of repaired and replaced by a new, good unit after retire_replace_h; a successful repair makes
// a lemon good with lemon_fix_frac. Predicted failures (the RAS engine): the unit is drained at its
// job's next checkpoint (at once if free) and repaired proactively before it fails. NVLink switch-tray
// faults with nvlink_degraded_frac > 0 leave the rack running on degraded NVLink; their repair is
// planned: the rack is drained at its jobs' next checkpoints and then repaired.
// Cooling faults (failure domain COOLING) are detected here too, after their mode's detect_s (Racky's
// delay unless given), and repaired by an RLCC workflow (ops/rlcc.hpp) that Mission Control runs with
// the RLCC crews (/cooling/crews, a pool of their own: a cooling repair never waits for, nor holds, one
// of repair_crews, and a hardware repair never waits for a cooling crew). The facility (CoolingWorks)
// supplies the physical side: what is isolated at detection, which racks a workflow drains, what returns
// at its end. Mission Control draws the workflow's service time from "repair/<mode>" at detection; a
// fault that ends by itself (facility water) draws its duration when it strikes and needs no workflow.
// Cooling repairs have no pipeline, escapes or lemon retirement. Planned facility work (maintenance
// waves) runs on the same RLCC workflows, without a crew.
// The time to repair reported per mode (MTTR) runs from the failure to the unit's return to service.
// Statistics are kept per mode and, after the modes, per extra cause: outages the facility reports
// that no failure mode caused (its thermal shutdowns), from the shutdown to the rack's return.
#pragma once

#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/failure/spec.hpp"
#include "models/ops/rlcc.hpp"
#include "models/ops/spec.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"
#include "sim/rng.hpp"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace dcsim::ops {

struct ModeRepairStats {
  std::uint64_t failures = 0;
  std::uint64_t repaired = 0;
  std::uint64_t escapes = 0;     ///< repairs that returned the unit still faulty
  std::uint64_t retired = 0;     ///< units retired by lemon detection
  std::uint64_t predicted = 0;   ///< failures averted by a predicted, proactive repair
  std::uint64_t found = 0;       ///< latent faults found by health checks before they failed
  sim::Tick time_to_repair = 0;  ///< sum over repaired failures of (back in service - failure)
};

/// The physical side of cooling repairs, supplied by the facility (models/facility.hpp). Mission Control
/// decides when a cooling fault is detected and repaired and runs the work; this says what the work does.
class CoolingWorks {
public:
  virtual ~CoolingWorks() = default;
  /// Whether the fault ends by itself, its drawn repair time after it struck, with no workflow
  /// (facility water: the excursion passes).
  virtual bool ends_by_itself(const failure::Failure& f) const = 0;
  /// Such a fault is over: its physical effects end.
  virtual void ended(const failure::Failure& f) = 0;
  /// At detection: isolates what must be isolated now (jobs there are interrupted) and returns the fault's
  /// repair workflow, all but its `service` time (Mission Control draws it); its `done` returns the unit.
  virtual Rlcc::Workflow repair_workflow(const failure::Failure& f) = 0;
  /// A workflow's planned drain (Rlcc::Hooks::drain).
  virtual void drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained) = 0;
};

class MissionControl {
public:
  struct Listener {
    std::function<void(const failure::Failure&)> taken_down; ///< its GPUs just went down (later than the strike)
    std::function<void(const failure::Failure&)> detected;
    std::function<void(const failure::Failure&)> repaired;
    /// Drain: jobs holding any of the GPUs stop at their next checkpoint; `done` runs once none does.
    std::function<void(hardware::GpuRange gpus, std::function<void()> done)> drain;
    /// No job holds any of the GPUs.
    std::function<bool(hardware::GpuRange gpus)> is_free;
  };
  /// Names the component a failure struck, for events (default: the hardware unit's name).
  using Namer = std::function<std::string(const failure::Failure&)>;

  MissionControl(const OperationsSpec& ops, const failure::FailuresSpec& failures, const hardware::Layout& layout,
                 failure::GpuHealth& health, sim::EventQueue& queue, sim::EventLog& log, std::uint64_t seed,
                 std::uint64_t replica, Listener listener, Namer namer = {});

  ~MissionControl();

  /// The injector whose units this controller renews, retires and re-strikes (set before start()).
  void set_injector(failure::FailureInjector* injector) { injector_ = injector; }
  /// The facility's physical side of cooling repairs, the RLCC stage lengths, the RLCC crews (0:
  /// unlimited) and the number of extra outage causes the facility reports (set before start()). `works`
  /// and `rlcc` are kept by reference.
  void attach_facility(CoolingWorks& works, const RlccSpec& rlcc, int rlcc_crews, int extra_causes);
  /// Starts the periodic health-check sweeps.
  void start();
  /// A failure just happened (called by the injector's listener): recorded (if not yet), detection
  /// scheduled.
  void on_failure(const failure::Failure& f);
  /// Records a failure (its statistics and failure event) before its effects play out; on_failure
  /// follows. A cooling fault is recorded so: Racky's alarm comes before the throttling and shutdowns.
  void record(const failure::Failure& f);
  /// Planned facility work (a maintenance wave's step): run on the RLCC workflows and crews.
  void run_workflow(Rlcc::Workflow w);
  /// An outage of extra cause `cause` (an index after the modes) began, or ended after starting at
  /// `since`: counted with the modes' statistics.
  void outage_began(int cause);
  void outage_ended(int cause, sim::Tick since);
  /// The RAS engine predicts a failure of (mode, unit) at `date`.
  void on_predicted(int mode, int unit, sim::Tick date);
  /// A job's pre-flight health check over the GPUs `mine` says are its own: latent faults found there
  /// go down for repair at once (no job is notified: the caller swaps them). Returns how many.
  int preflight(const std::function<bool(int gpu)>& mine);

  /// Per mode, then per extra cause.
  const std::vector<ModeRepairStats>& stats() const { return stats_; }
  int busy_crews() const { return busy_; }
  int busy_rlcc_crews() const { return rlcc_ ? rlcc_->busy_crews() : 0; }
  /// Workflows waiting for an RLCC crew.
  std::size_t queued_workflows() const { return rlcc_ ? rlcc_->queued() : 0; }
  /// Repairs waiting for one of repair_crews (RLCC workflows waiting for a cooling crew: queued_workflows).
  std::size_t queued_repairs() const { return waiting_.size(); }
  /// Failures (any domain) and proactive repairs not yet back in service.
  std::size_t active_repairs() const { return active_.size(); }

private:
  struct Active {
    failure::Failure f;
    hardware::GpuRange down;      ///< GPUs this record holds down (health), possibly wider than f.gpus
    bool down_at_strike = false;  ///< the injector took f.gpus down when it struck
    bool predicted = false;       ///< a proactive repair: no failure happened
    sim::EventQueue::EventId timer;
    int stage = -1;               ///< pipeline stage in progress
    sim::Tick duration = 0;       ///< fixed repair: its drawn duration
    sim::Name name;               ///< the component's name (events), computed once
  };

  const OperationsSpec* ops_;
  const failure::FailuresSpec* failures_;
  const hardware::Layout* layout_;
  failure::GpuHealth* health_;
  failure::FailureInjector* injector_ = nullptr;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Listener listener_;
  Namer namer_;
  CoolingWorks* works_ = nullptr;
  std::unique_ptr<Rlcc> rlcc_;
  std::vector<sim::Rng> repair_rng_;  ///< per mode
  std::vector<sim::Name> scope_names_; ///< per mode, interned once
  std::unordered_map<std::uint64_t, sim::Name> unit_names_; ///< (mode, unit) -> its component name, named once
  std::vector<sim::Rng> latent_rng_;  ///< per mode
  std::vector<ModeRepairStats> stats_;
  std::map<std::uint64_t, Active> active_; ///< failures not yet back in service, by id
  std::deque<std::pair<std::uint64_t, int>> waiting_; ///< (failure, stage or -1 for a fixed repair) waiting for a crew
  std::map<std::pair<int, int>, std::deque<sim::Tick>> history_; ///< (mode, unit) -> failure dates (lemon detection)
  int busy_ = 0;
  std::uint64_t next_predicted_id_ = 1ULL << 62; ///< ids of proactive repairs, apart from failures'

  const failure::FailureModeSpec& mode(const failure::Failure& f) const {
    return failures_->modes[static_cast<std::size_t>(f.mode)];
  }
  void take_down(Active& a, hardware::GpuRange range);
  void detect(std::uint64_t id);
  void begin_repair(std::uint64_t id);
  void request_stage(std::uint64_t id, int stage);
  void start_stage(std::uint64_t id, int stage);
  void end_stage(std::uint64_t id, int stage);
  void start_fixed(std::uint64_t id, bool crew); ///< a fixed-length repair, holding a crew or not
  bool crew_free() const { return ops_->repair_crews == 0 || busy_ < ops_->repair_crews; }
  void release_crew();
  void complete(std::uint64_t id, bool escaped);
  bool retire_if_lemon(std::uint64_t id);
  void sweep();
  void strike_cooling(std::uint64_t id);
  void repair_cooling(std::uint64_t id);
  void complete_cooling(std::uint64_t id);
  void found(std::uint64_t id);
  hardware::GpuRange rack_of(const failure::Failure& f) const;
  sim::Name component(const failure::Failure& f);
  const sim::Name& scope(const failure::Failure& f) const;
  void note(sim::Name kind, const Active& a, std::string detail = {});
};

} // namespace dcsim::ops
