// Why a job's GPU-time went where it went: the cause carried with every charge to its ledger.
//
// A cause is a small integer. Causes 0 … modes − 1 are the failure causes the job was built with (the
// scenario's failure modes, then the facility's extra causes such as thermal_shutdown: Replica's
// cause_name order); causes modes + k are the mechanisms below, which no failure triggers. The job keeps,
// for each (ledger state, cause), the GPU·µs charged (TrainingJob::cause_time), so that
//     Σ over causes of cause_time(state, ·) = gpu_time()[state]     exactly (integers, no rounding).
// Which cause a charge carries (training_job.hpp, "Loss by cause"):
//   productive                                   → PRODUCTIVE
//   checkpoint                                   → CHECKPOINT_WRITE
//   degraded (pace slowdown, reroute stalls)     → SLOWDOWN (the slowdown's factors multiply — stragglers,
//                                                  gray faults, throttling, fabric sharing — so no split
//                                                  of their product by factor is unique; one cause)
//   reduced_batch (ft_dp groups out)             → GROUPS_OUT
//   maintenance                                  → PLANNED_STOP
//   rework                                       → the failure mode that lost the work (interruption or a
//                                                  checkpoint lost with its tier); RESCHEDULED when a
//                                                  release lost it
//   detection, restart, waiting                  → what stopped the job: the failure mode of the
//                                                  interruption (ft_dp: of the hang, or of the group
//                                                  rejoining), PLANNED_STOP after a planned stop or drain,
//                                                  LAUNCH at the first start, RESCHEDULED after the
//                                                  scheduler released and placed it again
#pragma once

#include "sim/strong_id.hpp"

#include <array>
#include <string_view>

namespace dcsim::workload {

/// A failure cause (0 … modes − 1 above) as the recovery strategies receive and charge it
/// (recovery/strategy.hpp): a strong type, not to be confused with a rank or a failure id.
using FailureCause = sim::StrongId<struct FailureCauseTag>;

enum class Mechanism : int { PRODUCTIVE, CHECKPOINT_WRITE, SLOWDOWN, GROUPS_OUT, PLANNED_STOP, LAUNCH, RESCHEDULED, COUNT };
inline constexpr int MECHANISMS = static_cast<int>(Mechanism::COUNT);

/// Output names of the mechanisms (losses.csv's cause column), in enum order.
inline constexpr std::array<std::string_view, MECHANISMS> MECHANISM_NAMES = {
    "productive", "checkpoint_write", "slowdown", "groups_out", "planned_stop", "launch", "rescheduled"};

} // namespace dcsim::workload
