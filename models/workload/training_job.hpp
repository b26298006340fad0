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
//   hold is released; the `stopped` hook says when the job has reached MAINTENANCE (its work is saved),
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
// Time accounting (DESIGN §4): every microsecond of the job's life is in exactly one ledger state.
// Compute and checkpoint time since the last completed checkpoint is *pending*: a completed checkpoint
// makes it productive / degraded / checkpoint; an interruption makes all of it rework. At the end of the
// run pending time is kept (nothing lost it). With a slowdown s ≥ 1 (stragglers, throttling, lost
// bandwidth), a run phase of wall time w makes min(left, ⌊w/s⌋) of progress (productive) and the rest
// of w is degraded. The job's GPU-hours in a state are its GPUs × the time in that state.
// Work done since the last checkpoint when the run ends counts as productive: nothing lost it within
// the simulated window (the first checkpoint after the window would save it unless a failure came).
#pragma once

#include "models/workload/spec.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::workload {

/// Ledger states of a job's allocated time (DESIGN §4), in output order.
enum class JobTime : int { PRODUCTIVE, CHECKPOINT, REWORK, DETECTION, RESTART, WAITING, DEGRADED, MAINTENANCE, COUNT };
inline constexpr int JOB_TIME_STATES = static_cast<int>(JobTime::COUNT);
std::string_view job_time_name(JobTime state);

struct JobTiming {
  sim::Tick step = 0;            ///< healthy step time
  sim::Tick interval = 0;        ///< compute between checkpoints (a whole number of steps)
  sim::Tick write = 0;           ///< blocking checkpoint write
  sim::Tick restart = 0;         ///< restart after recovery
  sim::Tick planned_every = 0;   ///< 0: no planned stops
  sim::Tick planned_downtime = 0;
};

class TrainingJob {
public:
  struct Hooks {
    std::function<bool()> recover;                   ///< replace down GPUs; true when all the job's GPUs are up
    std::function<std::string(int mode)> cause_name; ///< name of a failure mode, for events
    std::function<void(bool training)> training_changed; ///< optional: training() flipped
    std::function<void()> stopped;                   ///< optional: a planned stop began (work saved)
  };

  TrainingJob(const JobSpec& spec, JobTiming timing, int modes, sim::EventQueue& queue, sim::EventLog& log,
              Hooks hooks);

  /// Starts the job (initial launch counts as a restart).
  void start();
  /// A failure `id` of mode `mode` struck at least one of the job's GPUs.
  void on_failure(std::uint64_t id, int mode);
  /// Failure `id` has been detected by Mission Control.
  void on_failure_detected(std::uint64_t id);
  /// Some capacity came back (a repair completed).
  void on_capacity_changed();
  /// Changes the step slowdown factor (>= 1) from now on.
  void set_slowdown(double slowdown);
  /// Training makes no progress for `duration` (traffic rerouting around a fabric fault); the time is
  /// degraded (lost with the rest if a failure comes before the next checkpoint). Only while running.
  void stall(sim::Tick duration);
  double slowdown() const { return slowdown_; }
  /// A planned stop at a checkpoint that lasts until release(); holds nest. Calls the `stopped` hook once
  /// stopped (at once when already stopped for planned work).
  void hold();
  void release();
  int holds() const { return holds_; }
  /// Closes the accounts at the end of the run.
  void finish();

  const JobSpec& spec() const { return *spec_; }
  const JobTiming& timing() const { return timing_; }
  bool training() const { return state_ == State::CYCLE || state_ == State::FINAL_WRITE || state_ == State::STALL; }
  /// Ticks in each ledger state (valid after finish()).
  const std::array<sim::Tick, JOB_TIME_STATES>& time() const { return time_; }
  sim::Tick wall() const { return end_ - start_; }
  std::uint64_t interruptions() const { return interruptions_; }
  std::uint64_t interruptions_planned() const { return interruptions_planned_; }
  std::uint64_t checkpoints() const { return checkpoints_; }
  /// Per failure mode: failures that struck the job / that interrupted it.
  const std::vector<std::uint64_t>& failures_by_mode() const { return failures_by_mode_; }
  const std::vector<std::uint64_t>& interruptions_by_mode() const { return interruptions_by_mode_; }

private:
  /// CYCLE: running and checkpointing periodically; FINAL_WRITE: a last write before a planned stop;
  /// STALL: running but stalled (no progress) until traffic flows again.
  enum class State { IDLE, RESTART, CYCLE, FINAL_WRITE, STALL, DETECTION, WAITING, MAINTENANCE, DONE };

  const JobSpec* spec_;
  JobTiming timing_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Hooks hooks_;

  State state_ = State::IDLE;
  sim::Tick since_ = 0;
  sim::Tick start_ = 0;
  sim::Tick end_ = 0;
  sim::EventQueue::EventId timer_;
  double slowdown_ = 1.0;
  sim::Tick stall_until_ = 0;

  // The current cycle (valid in CYCLE): its origin and the job's progress state at that origin.
  sim::Tick origin_ = 0;
  sim::Tick remaining_ = 0; ///< compute left before the next checkpoint (0: a write is in progress)

  sim::Tick pending_productive_ = 0; ///< since the last completed checkpoint
  sim::Tick pending_degraded_ = 0;
  sim::Tick pending_checkpoint_ = 0; ///< also: how much of the current write is done
  bool planned_due_ = false;
  int holds_ = 0;
  std::set<std::uint64_t> undetected_;
  std::array<sim::Tick, JOB_TIME_STATES> time_{};
  std::uint64_t interruptions_ = 0;
  std::uint64_t interruptions_planned_ = 0;
  std::uint64_t checkpoints_ = 0;
  std::vector<std::uint64_t> failures_by_mode_;
  std::vector<std::uint64_t> interruptions_by_mode_;

  void transition(State next);
  void close_current();
  void close_cycle(sim::Tick now);
  void run_phase(sim::Tick wall, sim::Tick& left);
  void commit_checkpoint(sim::Tick at);
  void begin_cycle();
  void begin_maintenance();
  void start_restart();
  void resume();
  void planned_tick();
  void take_planned_stop();
  sim::Tick wall_of(sim::Tick progress) const;
  /// A planned stop is owed: the periodic one, or a hold not yet taken.
  bool stop_due() const { return planned_due_ || (holds_ > 0 && state_ != State::MAINTENANCE); }
  sim::Tick pending_work() const { return pending_productive_ + pending_degraded_ + pending_checkpoint_; }
  void add(JobTime state, sim::Tick dt) { time_[static_cast<std::size_t>(state)] += dt; }
  void event(std::string_view kind, std::string detail = {}, sim::Tick at = -1);
};

} // namespace dcsim::workload
