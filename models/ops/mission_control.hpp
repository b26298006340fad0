// Mission Control: detection of failures and the repair queue.
//
//   failure ──detect_s──▶ detected ──(wait for a crew)──▶ repair (drawn from the mode's distribution)
//                                                          ──▶ back in service (GPUs up)
// A failure is detected `detect_s` after it happens. Its repair is queued then; with `repair_crews` > 0
// at most that many repairs run at once, in detection order (FIFO). A zero-length repair (a software
// fault: nothing to replace) needs no crew and completes at detection, before the jobs hear of the
// detection, so they restart on the same GPUs. Repair durations come from the stream "repair/<mode>",
// drawn at detection in detection order.
// The time to repair reported per mode (MTTR) runs from the failure to the unit's return to service:
// detection + queueing + repair.
#pragma once

#include "models/failure/gpu_health.hpp"
#include "models/failure/injector.hpp"
#include "models/failure/spec.hpp"
#include "models/ops/spec.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"
#include "sim/rng.hpp"

#include <deque>
#include <functional>
#include <vector>

namespace dcsim::ops {

struct ModeRepairStats {
  std::uint64_t failures = 0;
  std::uint64_t repaired = 0;
  sim::Tick time_to_repair = 0; ///< sum over repaired failures of (back in service - failure)
};

class MissionControl {
public:
  struct Listener {
    std::function<void(const failure::Failure&)> detected;
    std::function<void(const failure::Failure&)> repaired;
  };

  /// Names the component a failure struck, for events (default: the hardware unit's name).
  using Namer = std::function<std::string(const failure::Failure&)>;

  MissionControl(const OperationsSpec& ops, const failure::FailuresSpec& failures, const hardware::Layout& layout,
                 failure::GpuHealth& health, sim::EventQueue& queue, sim::EventLog& log, std::uint64_t seed,
                 std::uint64_t replica, Listener listener, Namer namer = {});

  /// A failure just happened (called by the injector's listener).
  void on_failure(const failure::Failure& f);

  const std::vector<ModeRepairStats>& stats() const { return stats_; }
  int busy_crews() const { return busy_; }
  std::size_t queued_repairs() const { return waiting_.size(); }

private:
  struct Repair {
    failure::Failure failure;
    sim::Tick duration = 0;
  };

  const OperationsSpec* ops_;
  const failure::FailuresSpec* failures_;
  const hardware::Layout* layout_;
  failure::GpuHealth* health_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Listener listener_;
  Namer namer_;
  std::vector<sim::Rng> repair_rng_; ///< per mode
  std::vector<ModeRepairStats> stats_;
  std::deque<Repair> waiting_;
  int busy_ = 0;

  void detect(const failure::Failure& f);
  void begin_repair(const Repair& r);
  void complete_repair(const failure::Failure& f);
  std::string component(const failure::Failure& f) const;
  const std::string& scope(const failure::Failure& f) const;
};

} // namespace dcsim::ops
