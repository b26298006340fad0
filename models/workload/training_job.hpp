// A synchronous training job with checkpoint/restart, as a state machine on the event queue.
//
//            ┌────────────── checkpoint done ◀──────────────┐
//            ▼                                              │
//   RESTART ─▶ run ── interval of compute done ──▶ checkpoint write (blocking write_s)
//      ▲        │  failure of one of its GPUs (also during a write or a restart): interruption
//      │        ▼
//      │    DETECTION ── every failed GPU detected ──▶ recover(): replace down GPUs
//      │                                     ├─ all GPUs up ─────────────────────▶ RESTART (restart_s)
//      └──────────── capacity returns ◀── WAITING ◀─ no replacement possible
//   planned stop: running, it writes a checkpoint at once (or finishes the write in progress), then
//   MAINTENANCE ──▶ RESTART; restarting or waiting, it starts at once; detecting, once detection ends
//   hold() (a planned drain for maintenance, a grid event): a planned stop as above that lasts until every
//   hold is lifted (unhold()); the `stopped` hook says when the job has reached MAINTENANCE (its work is saved),
//   so that its GPUs can be taken away without losing work (the allocator then moves it at the restart)
//
// The run/checkpoint alternation is periodic while nothing happens, so it costs no events: the job is
// in one CYCLE state from which the phase at any date follows by arithmetic,
//     first write starts at origin + ⌈R₀·s⌉, then one checkpoint every ⌈τ·s⌉ + δ,
// (R₀ = compute left before the next checkpoint when the cycle began, τ the interval, δ the write,
// s the slowdown). The cycle is closed — completed checkpoints committed and logged at their own
// dates, the partial segment kept pending — only when something happens: a failure, a slowdown change,
// a planned stop, the end of the run. A two-week 131,072-GPU run then costs events per failure, not
// per checkpoint.
//
// Scheduling: a job holds no GPU from its arrival until the scheduler places it (QUEUED, no ledger
// time: the wait is reported as queue time); a preempted job stops at a checkpoint, releases its GPUs
// and queues again; an elastic job may be resized (fewer or more GPUs) at such a stop; a job with an
// amount of work ends when it is done (its progress counted at full size: gpus held / gpus asked).
//
// Time accounting (docs/architecture.md): every GPU-microsecond the job holds is in exactly one ledger state.
// Compute and checkpoint time since the last completed checkpoint is *pending*: a completed checkpoint
// makes it productive / degraded / checkpoint; an interruption makes all of it rework. At the end of the
// run pending time is kept (nothing lost it). With a slowdown s ≥ 1 (stragglers, throttling, lost
// bandwidth), a run phase of wall time w makes min(left, ⌊w/s⌋) of progress (productive) and the rest
// of w is degraded. The job's GPU-hours in a state are its GPUs × the time in that state.
// Work done since the last checkpoint when the run ends counts as productive: nothing lost it within
// the simulated window (the first checkpoint after the window would save it unless a failure came).
//
// Checkpoints over storage tiers (storage/checkpoint_plan.hpp, docs/recovery.md). An asynchronous
// checkpoint is committed when its snapshot ends, but its copy reaches a tier that survives a failure of
// mode m only loss_window[m] later: a failure of mode m sooner than that falls back to the checkpoint
// before, and the last committed segment (its productive, degraded and checkpoint time) moves to rework
// (fall_back; the drain of one checkpoint ends before the next snapshot, so one segment at most).
// With storage flows (the hooks snapshot, lost, load: storage/storage_traffic.hpp) the drains and loads are
// played instead: the cycle arms a timer at each checkpoint's commit (an event per checkpoint, not per
// failure), the job keeps the segments of the checkpoints not yet durable everywhere, a failure moves
// those the hook says it lost to rework (any number), and the load part lasts until the hook's flow ends.
// A restart in parts (restart_parts) runs reschedule (+ the `extra` of the recover hook), init, then the
// load of the checkpoint from the tier the failures since the job last trained left (load[m], the largest
// of them; load_planned after a planned stop or a move; nothing at the first launch); restart_part_time()
// splits the RESTART ledger time by part.
//
// Recovery strategies (recovery/strategy.hpp): the job owns one, chosen by /jobs/*/recovery/strategy. The
// restart strategy absorbs nothing: every failure interrupts the job as above. A strategy that absorbs a
// failure (ft_dp: recovery/strategies/ft_dp_strategy.cpp) acts on the job only through RecoveryHost: it may
// pause the whole job (REFORM: no progress, its time in the ledger state the strategy names, for a duration
// or until the next pause) and set the running share a ≤ 1 of the job's GPUs that train. While a < 1 the cycle's arithmetic
// runs with the effective slowdown s' = s/a (checkpoints keep their period in progress, so they come 1/a
// times further apart in wall time), and a run phase of wall time w splits (GPU·µs, G GPUs):
//     productive    = G·⌊w/s'⌋                    (the training share)
//     reduced_batch = G·(⌊w/s⌋ − ⌊w/s'⌋)           (the share sitting out)
//     degraded      = G·(w − ⌊w/s⌋)                (the pace slowdown, as with everyone training)
// so productive + reduced_batch + degraded = G·w (conserved). Reduced-batch time is pending like the rest
// (a later full interruption makes it rework). A failure the strategy does not absorb interrupts the job;
// the strategy then hands back the failures it absorbed and not yet detected, and starts afresh.
//
// Loss by cause (loss_cause.hpp): every charge to a ledger state also goes to (state, cause), the cause
// being the state's current one (cause_of_), set where the job changes course (an interruption, a planned
// stop, a placement, a strategy's pause) before any time of the new course is charged. A lost checkpoint's
// segment moves from its states' causes to rework under the failure mode that lost it.
#pragma once

#include "models/workload/loss_cause.hpp"
#include "models/workload/recovery/strategy.hpp"
#include "models/workload/spec.hpp"
#include "models/workload/workload.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <array>
#include <deque>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::workload {

/// Ledger states of a job's allocated time (docs/architecture.md), in output order.
/// REDUCED_BATCH: the share of the job's GPU-time its recovery strategy keeps out (ft_dp: groups out; above).
enum class JobTime : int {
  PRODUCTIVE, CHECKPOINT, REWORK, DETECTION, RESTART, WAITING, DEGRADED, MAINTENANCE, REDUCED_BATCH, COUNT
};
inline constexpr int JOB_TIME_STATES = static_cast<int>(JobTime::COUNT);
std::string_view job_time_name(JobTime state);

struct JobTiming {
  sim::Tick step = 0;            ///< healthy step time
  sim::Tick interval = 0;        ///< compute between checkpoints (a whole number of steps)
  sim::Tick write = 0;           ///< blocking checkpoint write
  sim::Tick restart = 0;         ///< restart after recovery (restart_parts: its reschedule + init, no load)
  sim::Tick planned_every = 0;   ///< 0: no planned stops
  sim::Tick planned_downtime = 0;
  // Checkpoints over storage tiers (storage/checkpoint_plan.hpp); all empty or 0 for a job without tiers.
  sim::Tick final_write = -1;    ///< a planned stop's write, until the copy is in the last tier (-1: write)
  /// Per failure mode: a checkpoint younger than loss_window[m] when a failure of mode m strikes has
  /// not reached a tier that survives it (asynchronous drain): the job falls back to the one before.
  std::vector<sim::Tick> loss_window;
  std::vector<sim::Tick> load;   ///< per failure mode: the restart's checkpoint load after it (restart_parts)
  sim::Tick load_planned = 0;    ///< the load after a planned stop or a move (restart_parts)
  /// restart = reschedule + init + the load of the checkpoint (else `restart`, which includes the load)
  bool restart_parts = false;
  sim::Tick reschedule = 0;
  sim::Tick init = 0;
  sim::Tick init_after_failure = -1; ///< warm standbys: the init of a restart after a failure (-1: init)
  sim::Tick final_write_or_write() const { return final_write >= 0 ? final_write : write; }
};

/// The parts of a restart (JobTiming::restart_parts), in the order they run.
enum class RestartPart : int { RESCHEDULE, INIT, LOAD, COUNT };
inline constexpr int RESTART_PARTS = static_cast<int>(RestartPart::COUNT);

class TrainingJob final : public Workload, private RecoveryHost {
public:
  struct Hooks {
    /// Replaces down GPUs; true when all the job's GPUs are up. May add to the next restart's length
    /// (`extra`: a warm spare's swap-in, a pre-flight health check).
    std::function<bool(sim::Tick& extra)> recover;
    std::function<std::string(int mode)> cause_name; ///< name of a failure mode, for events
    std::function<void(bool training)> training_changed; ///< optional: training() flipped
    std::function<void()> stopped;                   ///< optional: a planned stop began (work saved)
    // Checkpoints played as flows over storage (optional, all three or none: storage/storage_traffic.hpp).
    /// A checkpoint was committed now: an asynchronous one's drain may begin (`durable`: it was written
    /// through every tier, a planned stop's). Returns how many of the newest checkpoints (this one
    /// included) are not yet durable in every tier: the job keeps their segments, to move them to rework
    /// if a failure loses them.
    std::function<int(bool durable)> snapshot;
    /// A failure of `mode` strikes the job: how many of the newest checkpoints have no copy it leaves.
    std::function<int(int mode)> lost;
    /// The restart's load part: read the checkpoint back (after failures, `mode` the one that left the
    /// farthest tier; -1 after a planned stop or a move), then call `done`.
    std::function<void(int mode, std::function<void()> done)> load;
    /// Optional: whether the GPU at each of these job ranks is up (absent: all when recover says all the
    /// job's GPUs are up, none otherwise).
    std::function<std::vector<bool>(const std::vector<int>& ranks)> ranks_up;
  };

  TrainingJob(const JobSpec& spec, JobTiming timing, int modes, sim::EventQueue& queue, sim::EventLog& log,
              Hooks hooks);

  /// Starts the job on all its GPUs at once (initial launch counts as a restart).
  void start() { place(spec_->gpus); }
  /// The scheduler gave the job `gpus` GPUs: it (re)starts on them (a restart).
  void place(int gpus);
  /// The scheduler took the job's GPUs (it must be stopped: see request_stop): it queues again.
  void release();
  /// An elastic job, stopped, will restart on `gpus` GPUs.
  void resize(int gpus);
  /// Called when a job with an amount of work has done it (its GPUs can be released).
  void set_completion_hook(std::function<void()> hook) { completed_ = std::move(hook); }
  /// A failure `id` of mode `mode` struck at least one of the job's GPUs.
  void on_failure(std::uint64_t id, int mode) override;
  /// Failure `id` struck the job's GPUs at ranks `ranks`: its recovery strategy may absorb it, else on_failure.
  void on_struck(std::uint64_t id, int mode, const std::vector<int>& ranks);
  /// The strategy wants the struck ranks (on_struck) rather than on_failure.
  bool wants_ranks() const { return strategy_->wants_ranks(); }
  /// Parts (ft_dp: replica groups) out now.
  int groups_out() const { return strategy_->out(); }
  /// Failures that dropped part of the job instead of interrupting it (ft_dp: replica groups).
  std::uint64_t group_drops() const { return strategy_->drops(); }
  /// Failure `id` has been detected by Mission Control.
  void on_failure_detected(std::uint64_t id) override;
  /// Some capacity came back (a repair completed).
  void on_capacity_changed() override;
  /// Changes the step slowdown factor (>= 1) from now on.
  void set_slowdown(double slowdown);
  /// Training makes no progress for `duration` (traffic rerouting around a fabric fault); the time is
  /// degraded (lost with the rest if a failure comes before the next checkpoint). Only while running.
  void stall(sim::Tick duration);
  /// Asks the job to stop at its next checkpoint, losing no work (a drain for a planned repair).
  /// `stopped` runs once the job no longer trains: right after that checkpoint, at once when it is not
  /// running, or at an interruption that comes first. The job then recovers (its GPUs may have been
  /// taken meanwhile) and restarts. A drain of a running job counts as a planned interruption.
  void request_stop(std::function<void()> stopped);
  double slowdown() const { return slowdown_; }
  /// A planned stop at a checkpoint that lasts until unhold(); holds nest. Calls the `stopped` hook once
  /// stopped (at once when already stopped for planned work). The job keeps its GPUs (see release()).
  void hold();
  void unhold();
  int holds() const { return holds_; }
  /// Closes the accounts at the end of the run.
  void finish() override;

  const JobSpec& spec() const override { return *spec_; }
  GpuTicks held_gpu_time() const override;
  const JobTiming& timing() const { return timing_; }
  bool training() const {
    return state_ == State::CYCLE || state_ == State::FINAL_WRITE || state_ == State::STALL || state_ == State::REFORM;
  }
  bool queued() const { return state_ == State::QUEUED; }
  bool done() const { return state_ == State::DONE; }
  bool running() const { return training(); }
  /// Recovering from an unplanned interruption or starting: detecting, waiting for replacements, restarting.
  bool recovering() const { return state_ == State::DETECTION || state_ == State::WAITING || state_ == State::RESTART; }
  int gpus() const { return gpus_; }
  /// GPU·µs in each ledger state (valid after finish()).
  const std::array<GpuTicks, JOB_TIME_STATES>& gpu_time() const { return time_; }
  /// Time holding GPUs (µs), and time queued without any.
  sim::Tick wall() const { return held_; }
  sim::Tick queued_time() const { return queued_; }
  /// When the job completed its work (-1: not completed).
  sim::Tick completed_at() const { return completed_at_; }
  /// How many times the job was resized or released (0: it held its full size from start to end).
  int reallocations() const { return reallocations_; }
  std::uint64_t interruptions() const { return interruptions_; }
  /// Of interruptions(): those that struck while the job was restarting (the rest struck it training).
  std::uint64_t interruptions_recovery() const { return interruptions_recovery_; }
  std::uint64_t interruptions_planned() const { return interruptions_planned_; }
  std::uint64_t checkpoints() const { return checkpoints_; }
  /// Failures that found the last checkpoint not yet in a tier surviving them (the job fell back one).
  std::uint64_t checkpoint_fallbacks() const { return checkpoint_fallbacks_; }
  /// GPU·µs of RESTART time in each part (restart_parts; a spare's swap-in and health checks count as
  /// rescheduling). Valid after finish().
  const std::array<GpuTicks, RESTART_PARTS>& restart_part_time() const { return restart_parts_; }
  /// Per failure mode: failures that struck the job / that interrupted it.
  const std::vector<std::uint64_t>& failures_by_mode() const { return failures_by_mode_; }
  const std::vector<std::uint64_t>& interruptions_by_mode() const { return interruptions_by_mode_; }
  /// Causes: the failure causes the job was built with (`modes`), then the mechanisms (loss_cause.hpp).
  int causes() const { return causes_; }
  /// GPU·µs charged to `state` with `cause` (valid after finish(); Σ over causes = gpu_time()[state]).
  GpuTicks cause_time(JobTime state, int cause) const {
    return cause_time_[static_cast<std::size_t>(state) * static_cast<std::size_t>(causes_) + static_cast<std::size_t>(cause)];
  }

private:
  /// CYCLE: running and checkpointing periodically; FINAL_WRITE: a last write before a planned stop;
  /// STALL: running but stalled (no progress) until traffic flows again.
  /// STOPPED: drained, for the instant in which its stop requests are served. QUEUED: holds no GPU.
  /// REFORM: paused by the recovery strategy (ft_dp: a hang, a quorum re-forming; no progress).
  enum class State { QUEUED, RESTART, CYCLE, FINAL_WRITE, STALL, REFORM, DETECTION, WAITING, MAINTENANCE, STOPPED, DONE };

  const JobSpec* spec_;
  sim::Name name_; ///< spec_->name, interned once
  JobTiming timing_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Hooks hooks_;

  State state_ = State::QUEUED;
  sim::Tick since_ = 0;
  sim::Tick held_ = 0;   ///< time holding GPUs
  sim::Tick queued_ = 0; ///< time queued
  int gpus_ = 0;         ///< GPUs held now
  bool started_ = false;
  GpuTicks work_ = 0;    ///< productive GPU·µs to complete (0: open-ended)
  sim::Tick completed_at_ = -1;
  int reallocations_ = 0;
  std::function<void()> completed_;
  sim::EventQueue::EventId completion_timer_;
  sim::EventQueue::EventId timer_;
  double slowdown_ = 1.0;
  sim::Tick stall_until_ = 0;
  std::vector<std::function<void()>> stop_requests_;
  sim::EventQueue::EventId stop_timer_;

  // The current cycle (valid in CYCLE): its origin and the job's progress state at that origin.
  sim::Tick origin_ = 0;
  sim::Tick remaining_ = 0; ///< compute left before the next checkpoint (0: a write is in progress)

  sim::Tick pending_productive_ = 0; ///< since the last completed checkpoint
  sim::Tick pending_degraded_ = 0;
  sim::Tick pending_checkpoint_ = 0; ///< also: how much of the current write is done
  sim::Tick pending_reduced_ = 0;

  std::unique_ptr<RecoveryStrategy> strategy_; ///< after hooks_: it may use them
  JobTime reform_as_ = JobTime::DETECTION; ///< ledger state of the REFORM pause in progress
  bool planned_due_ = false;
  int holds_ = 0;
  std::set<std::uint64_t> undetected_;
  std::array<GpuTicks, JOB_TIME_STATES> time_{};
  std::uint64_t interruptions_ = 0;
  std::uint64_t interruptions_recovery_ = 0;
  std::uint64_t interruptions_planned_ = 0;
  std::uint64_t checkpoints_ = 0;
  std::uint64_t checkpoint_fallbacks_ = 0;
  // The last committed checkpoint and what its segment added to the ledger, while its copy may still
  // be draining (last_commit_at_ < 0: nothing at risk).
  sim::Tick last_commit_at_ = -1;
  std::array<GpuTicks, 4> last_segment_{}; ///< productive, degraded, checkpoint, reduced batch
  /// With storage flows: the segments of the newest checkpoints not yet durable everywhere, oldest first.
  std::deque<std::array<GpuTicks, 4>> at_risk_;
  sim::EventQueue::EventId snapshot_timer_;
  int load_mode_ = -1;                ///< storage flows: the mode whose load the next restart needs
  std::uint64_t restart_serial_ = 0;  ///< a load's completion belongs to this restart
  // The restart in progress and the load the next one needs.
  sim::Tick next_load_ = 0;
  bool after_failure_ = false; ///< the next restart follows a failure (warm standbys join)
  sim::Tick restart_began_ = 0;
  std::array<sim::Tick, RESTART_PARTS> restart_ends_{}; ///< offsets from restart_began_
  std::array<GpuTicks, RESTART_PARTS> restart_parts_{};
  std::vector<std::uint64_t> failures_by_mode_;
  std::vector<std::uint64_t> interruptions_by_mode_;
  // Loss by cause (loss_cause.hpp): the cause each state's charges carry now, and the charges by cause.
  int modes_ = 0;
  int causes_ = 0;
  std::array<int, JOB_TIME_STATES> cause_of_{};
  std::vector<GpuTicks> cause_time_; ///< [state × causes_ + cause]
  int struck_cause_ = -1;            ///< a failure struck during a planned stop: the detection after it

  void transition(State next);
  void close_current();
  void close_cycle(sim::Tick now);
  void run_phase(sim::Tick wall, sim::Tick& left);
  /// `durable`: written through every tier (a planned stop's final write), nothing left to drain.
  void commit_checkpoint(sim::Tick at, bool durable = false);
  /// The last checkpoint did not survive failure mode `mode`: its segment becomes rework.
  void fall_back(int mode);
  /// A failure of `mode` struck: the next restart loads from the tier that survives it (`first`: the
  /// first failure since the job last trained; later ones can only push the load further out).
  void need_load(int mode, bool first);
  void account_restart(sim::Tick from, sim::Tick to);
  void begin_cycle();
  void begin_maintenance();
  void resume();
  void planned_tick();
  void take_planned_stop();
  /// Runs the pending stop requests in a zero-delay event (the job no longer trains).
  void serve_requests_later();
  void arm_stop();
  /// Storage flows: a timer at the next checkpoint's commit, which calls the snapshot hook.
  void arm_snapshot();
  bool flows() const { return static_cast<bool>(hooks_.lost); }
  void serve_stops(bool planned);
  void start_restart(sim::Tick extra);
  sim::Tick wall_of(sim::Tick progress) const;
  /// A planned stop is owed: the periodic one, or a hold not yet taken.
  bool stop_due() const { return planned_due_ || (holds_ > 0 && state_ != State::MAINTENANCE); }
  sim::Tick pending_work() const {
    return pending_productive_ + pending_degraded_ + pending_checkpoint_ + pending_reduced_;
  }
  /// Moves the pending time into the ledger states (kept) or into rework (lost), and clears it.
  void commit_pending();
  void lose_pending();
  /// Progress slowdown of the cycle: the pace's, over the strategy's running share.
  double cycle_slowdown() const;
  void end_reform();
  /// The cycle goes on (after a pause or a stall): stops, completion and snapshots re-armed.
  void go_on();
  /// The strategy's absorbed failures not yet detected join the job's; it starts afresh.
  void reset_strategy();
  // RecoveryHost (recovery/strategy.hpp).
  sim::EventQueue& queue() override { return *queue_; }
  bool cycling() const override { return state_ == State::CYCLE; }
  bool absorbable() const override {
    return state_ == State::CYCLE || state_ == State::REFORM || state_ == State::STALL;
  }
  void settle() override { close_current(); }
  void pause(JobTime as, sim::Tick duration, FailureCause cause) override;
  void count_failure(FailureCause mode) override { ++failures_by_mode_[mode.index()]; }
  bool recover(sim::Tick& extra) override { return hooks_.recover(extra); }
  std::vector<bool> ranks_up(const std::vector<int>& ranks) override;
  std::string cause_name(FailureCause mode) override { return hooks_.cause_name(mode.value()); }
  void note(const char* kind, std::string detail) override;
  void add(JobTime state, sim::Tick dt) {
    const auto s = static_cast<std::size_t>(state);
    const GpuTicks t = static_cast<GpuTicks>(dt) * gpus_;
    time_[s] += t;
    cause_time_[s * static_cast<std::size_t>(causes_) + static_cast<std::size_t>(cause_of_[s])] += t;
  }
  /// Sizes the charges by cause and sets each state's initial cause (loss_cause.hpp).
  void init_causes(int modes);
  /// Moves `t` GPU·µs from one state (its current cause) to another (its current cause).
  void move_time(JobTime from, JobTime to, GpuTicks t);
  int mechanism(Mechanism m) const { return modes_ + static_cast<int>(m); }
  /// What stopped the job: the cause of its detection, waiting and restart from now on.
  void set_stop_cause(int cause);
  /// Wall time from the cycle's origin until `progress` more of healthy compute is done.
  sim::Tick cycle_time_for(sim::Tick progress) const;
  void arm_completion();
  void complete();
  void event(sim::Name kind, std::string detail = {}, sim::Tick at = -1);
};

} // namespace dcsim::workload
