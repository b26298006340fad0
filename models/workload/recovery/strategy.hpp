// A training job's recovery strategy: what happens to the job when a failure strikes some of its GPUs.
//
// A strategy is one file, recovery/strategies/NAME.cpp: a class implementing RecoveryStrategy, its keys
// and their decoder, and its registry entry NAME_entry() (registry.hpp; the build lists every file of
// that folder: docs/architecture.md, "Adding a recovery strategy"). The job (TrainingJob) owns one
// and calls it at the moments below; the strategy acts on the job only through RecoveryHost, the narrow
// set of things a strategy may do to it (pause its progress, settle its accounts, ask for replacement
// GPUs). The job keeps the ledger: a strategy changes it only through running_share() (the share of the
// job's GPUs that train while the rest sits out: their time is REDUCED_BATCH) and the pauses it asks for.
//
//   restart (strategies/restart_strategy.cpp): absorbs nothing; any failure interrupts the job as a whole
//     (work since the last checkpoint is lost, then detection, recovery, restart: training_job.hpp). Warm
//     standbys and a restart in parts are ways of restarting (operations and checkpoint keys: JobTiming),
//     not strategies.
//   ft_dp (strategies/ft_dp_strategy.cpp): replica groups drop and rejoin, each on its own.
#pragma once

#include "models/workload/loss_cause.hpp"
#include "models/workload/recovery_spec.hpp"
#include "sim/event_queue.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dcsim::workload {

enum class JobTime : int;

/// What a strategy may do to its job.
class RecoveryHost {
public:
  virtual ~RecoveryHost() = default;
  virtual sim::EventQueue& queue() = 0;
  /// The job trains in its cycle (not paused, stalled, writing a planned stop's checkpoint or restarting).
  virtual bool cycling() const = 0;
  /// The job trains or is paused or stalled: a failure can be absorbed without an interruption.
  virtual bool absorbable() const = 0;
  /// Brings the job's accounts up to now at the current running share (call before changing it).
  virtual void settle() = 0;
  /// The whole job makes no progress from now, its time in ledger state `as`, for `duration` (then it trains
  /// on; < 0: until the next pause() replaces this one). Replaces a pause or a fabric stall in progress.
  /// `cause`: the failure mode the pause's time is charged to (loss_cause.hpp).
  virtual void pause(JobTime as, sim::Tick duration, FailureCause cause) = 0;
  /// Counts a failure of `mode` that struck the job without interrupting it.
  virtual void count_failure(FailureCause mode) = 0;
  /// Replaces the job's down GPUs where possible (spares); adds a swap-in's or a pre-flight check's time to
  /// `extra`. True when all the job's GPUs are up.
  virtual bool recover(sim::Tick& extra) = 0;
  /// Whether the GPU at each of these job ranks is up now (one answer per rank).
  virtual std::vector<bool> ranks_up(const std::vector<int>& ranks) = 0;
  virtual std::string cause_name(FailureCause mode) = 0;
  virtual void note(const char* kind, std::string detail) = 0; ///< an event in the job's log
};

class RecoveryStrategy {
public:
  virtual ~RecoveryStrategy() = default;
  /// The job should report failures with the ranks they struck (on_struck) rather than interrupt at once.
  virtual bool wants_ranks() const { return false; }
  /// Failure `id` of `mode` struck the job's GPUs at `ranks` (repeats allowed). True: the strategy absorbed
  /// it (the job is not interrupted, the strategy follows its detection); false: the job is interrupted.
  virtual bool on_struck(std::uint64_t /*id*/, FailureCause /*mode*/, const std::vector<int>& /*ranks*/) {
    return false;
  }
  /// Failure `id` was detected; true when it was one the strategy absorbed.
  virtual bool on_detected(std::uint64_t /*id*/) { return false; }
  /// Some capacity came back (a repair completed) while the job trains.
  virtual void on_capacity_changed() {}
  /// The job's cycle goes on after a pause or a stall.
  virtual void on_cycling() {}
  /// The job is interrupted, restarts or is released as a whole: every absorbed failure not yet detected
  /// is handed to the job (appended to `undetected`), and the strategy starts afresh.
  virtual void reset(std::vector<std::uint64_t>& /*undetected*/) {}
  /// Share of the job's GPUs training now (1: all): progress runs at this share of the paced rate.
  virtual double running_share() const { return 1.0; }
  /// Counters for the results: failures absorbed by dropping part of the job, parts out now.
  virtual std::uint64_t drops() const { return 0; }
  virtual int out() const { return 0; }
};

/// The strategy named by `spec` (recovery/registry.hpp), acting on `host`.
std::unique_ptr<RecoveryStrategy> make_recovery_strategy(const RecoverySpec& spec, RecoveryHost& host);

} // namespace dcsim::workload
