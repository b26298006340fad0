// Failure injection: one failure process per mode over its whole population of units.
//
// Exponential modes (weibull_shape = 1) are one Poisson process of rate N·λ over the mode's N units,
// thinned to the units this mode has not already struck: at each candidate date a unit is drawn
// uniformly and fails unless it is still in repair for this mode. This is exact for independent
// exponential units (each fails at λ while in service, memoryless), costs O(failures) events and one
// flag per unit. Modes are independent: a rack can fail while one of its GPUs is in repair for another
// mode (GPU health counts overlapping failures).
// Weibull modes keep one next-failure date per unit in service in a heap and schedule only the
// earliest; a unit's clock restarts when its repair completes (renew()).
// Each mode draws from its own stream "failure/<mode name>".
#pragma once

#include "models/failure/gpu_health.hpp"
#include "models/failure/spec.hpp"
#include "sim/event_queue.hpp"
#include "sim/rng.hpp"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace dcsim::failure {

struct Failure {
  std::uint64_t id = 0;
  int mode = 0; ///< index into the modes
  hardware::Scope scope = hardware::Scope::GPU; ///< hardware modes
  int unit = 0;                                 ///< unit of the mode's scope (a fabric element's unit number)
  hardware::GpuRange gpus;                      ///< GPUs whose hardware failed (empty for fabric modes)
  sim::Tick time = 0;
};

class FailureInjector {
public:
  using Listener = std::function<void(const Failure&)>;

  /// `units[m]`: the population of mode m (hardware units from the layout, fabric elements from the
  /// fabric); empty: every mode is a hardware mode counted from the layout.
  FailureInjector(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout, GpuHealth& health,
                  sim::EventQueue& queue, std::uint64_t seed, std::uint64_t replica, Listener listener,
                  const std::vector<int>& units = {});

  /// Schedules the first failure of every mode.
  void start();
  /// The unit of `failure` is back in service (Weibull modes restart its clock).
  void renew(const Failure& failure);
  std::uint64_t failures() const { return next_id_; }

private:
  struct Process {
    const FailureModeSpec* spec = nullptr;
    int index = 0;
    int units = 0;
    double unit_rate_per_s = 0;
    double weibull_scale_s = 0;
    sim::Rng rng{0};
    sim::EventQueue::EventId pending;
    std::vector<char> down; ///< units struck by this mode and not yet repaired
    // Weibull: next failure date per unit, earliest first.
    std::priority_queue<std::pair<sim::Tick, int>, std::vector<std::pair<sim::Tick, int>>, std::greater<>> heap;
  };

  const hardware::Layout* layout_;
  GpuHealth* health_;
  sim::EventQueue* queue_;
  Listener listener_;
  std::vector<Process> processes_;
  std::uint64_t next_id_ = 0;

  void schedule_poisson(Process& p);
  void schedule_weibull(Process& p);
  void strike(Process& p, int unit);
  sim::Tick draw_lifetime(Process& p);
};

} // namespace dcsim::failure
