// A training job's step as shared and as alone on the fabric, time-weighted over its productive time:
// the per-job outputs step_alone_s, step_shared_s, fabric_slowdown_frac and exposed_comm_frac.
//
// The replica sets the job's current step whenever its pace changes (JobPace::step_times): the step
// in its state as shared (the shared-fabric factors per axis: fabric/shared_fabric.hpp) A_s, the same
// state with every factor 1 (alone on the fabric) A_a, and the exposed communication of the shared
// step C_s (seconds). Over the intervals i of length Δ_i during which the job trains (TrainingJob's
// training(): computing steps, not restarting, checkpoint-blocked or queued), with the values in
// force then:
//   step_alone_s         = Σ Δ_i A_a,i / Σ Δ_i
//   step_shared_s        = Σ Δ_i A_s,i / Σ Δ_i
//   fabric_slowdown_frac = step_shared_s / step_alone_s − 1      (0 exactly for a job alone: A_s = A_a)
//   exposed_comm_frac    = Σ Δ_i C_s,i / Σ Δ_i A_s,i             (share of the shared step)
// All NaN for a job that never trained. Units: seconds, µs ticks.
#pragma once

#include "sim/units.hpp"

namespace dcsim::workload {

class StepRecord {
public:
  /// The job's step from `now` on (s): shared, alone, and the shared step's exposed communication.
  void set(sim::Tick now, double shared_s, double alone_s, double comm_s);
  /// The job starts (true) or stops (false) training at `now`.
  void training(sim::Tick now, bool on);
  /// Closes the interval in progress at `now` (the end of the run).
  void finish(sim::Tick now) { training(now, false); }

  double step_alone_s() const;
  double step_shared_s() const;
  double fabric_slowdown_frac() const;
  double exposed_comm_frac() const;

private:
  double shared_s_ = 0, alone_s_ = 0, comm_s_ = 0; ///< in force now
  bool on_ = false;
  sim::Tick since_ = 0;
  double weight_s_ = 0, shared_sum_ = 0, alone_sum_ = 0, comm_sum_ = 0;
  void close(sim::Tick now);
};

} // namespace dcsim::workload
