// Failure injection: one failure process per mode over its whole population of units.
//
// Exponential modes (weibull_shape = 1) are one Poisson process over the mode's N units, thinned to the
// units this mode has not already struck: at each candidate date a unit is drawn uniformly and fails
// unless it is still in repair for this mode. This is exact for independent exponential units (each
// fails at its rate while in service, memoryless), costs O(failures) events and one flag per unit. Modes
// are independent: a rack can fail while one of its GPUs is in repair for another mode (GPU health
// counts overlapping failures).
// Lemons (issue 6): a share lemon_frac of the units fail lemon_factor (k) times as often. The process
// then runs at the lemons' rate N·k·λ and a candidate is kept with probability 1 for a lemon and 1/k
// for a good unit (thinning), so each unit fails at its own rate. Lemons are drawn once per replica
// from the stream "lemon/<mode>"; a repair may make a lemon good (fix_lemon), and a retired unit is
// replaced by a new, good one (replace_unit).
// Predicted failures (exponential modes): the candidate's unit is drawn when its date is drawn, so a
// share predicted_frac of the failures can be announced lead_time_h ahead (the `predicted` listener);
// a unit taken out of service before its date (take_unit) is then simply not struck.
// Weibull modes keep one next-failure date per unit in service in a heap and schedule only the
// earliest; a unit's clock restarts when its repair completes (renew()); a lemon's lifetimes are
// shorter by its factor.
// A pause filter (`/failures/clock` paused_during_recovery, failure/spec.hpp) may discard a strike
// before it happens: the unit is not struck, nothing is reported; a Weibull unit's clock restarts then.
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
  hardware::GpuRange gpus;                      ///< the unit's GPUs (empty for fabric modes)
  sim::Tick time = 0;
  bool lemon = false;                           ///< the unit was a lemon when it failed
};

class FailureInjector {
public:
  using Listener = std::function<void(const Failure&)>;
  /// A failure of (mode, unit) will come at `date` (predicted_frac of exponential modes' failures).
  using Predictor = std::function<void(int mode, int unit, sim::Tick date)>;

  /// `units[m]`: the population of mode m (hardware units from the layout, fabric elements from the
  /// fabric); empty: every mode is a hardware mode counted from the layout.
  FailureInjector(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout, GpuHealth& health,
                  sim::EventQueue& queue, std::uint64_t seed, std::uint64_t replica, Listener listener,
                  const std::vector<int>& units = {});

  void set_predictor(Predictor predictor) { predictor_ = std::move(predictor); }
  /// `paused(mode, gpus)` true: a strike of a hardware unit with these GPUs is discarded (see the header).
  void set_pause(std::function<bool(int mode, hardware::GpuRange gpus)> paused) { paused_ = std::move(paused); }
  /// Strikes discarded by the pause filter.
  std::uint64_t discarded() const { return discarded_; }
  /// Schedules the first failure of every mode.
  void start();
  /// The unit of `failure` is back in service (Weibull modes restart its clock).
  void renew(const Failure& failure);
  /// Takes a unit out of service for this mode (a proactive repair): it cannot fail until renewed.
  /// Returns false when it already is out.
  bool take_unit(int mode, int unit);
  /// Brings a unit taken with take_unit back into service.
  void return_unit(int mode, int unit);
  /// Strikes the unit again at `date` unless it is out of service then (a repair that left it faulty).
  void strike_at(int mode, int unit, sim::Tick date);
  bool is_lemon(int mode, int unit) const;
  /// The unit stops being a lemon (a repair fixed it, or it was replaced by a new one).
  void fix_lemon(int mode, int unit);
  int units(int mode) const { return processes_[static_cast<std::size_t>(mode)].units; }
  std::uint64_t failures() const { return next_id_; }
  /// Lemons currently in a mode's population.
  int lemons(int mode) const { return processes_[static_cast<std::size_t>(mode)].lemon_count; }

private:
  struct Candidate {
    int unit = 0;
    bool keep = true;      ///< survives the lemon thinning
    bool predicted = false;
  };
  struct Process {
    const FailureModeSpec* spec = nullptr;
    int index = 0;
    int units = 0;
    double unit_rate_per_s = 0;
    double weibull_scale_s = 0;
    sim::Rng rng{0};
    sim::EventQueue::EventId pending;
    std::vector<char> down;  ///< units out of service for this mode (struck, or taken)
    std::vector<char> lemon; ///< empty without lemons
    int lemon_count = 0;
    // Weibull: next failure date per unit, earliest first.
    std::priority_queue<std::pair<sim::Tick, int>, std::vector<std::pair<sim::Tick, int>>, std::greater<>> heap;
  };

  const hardware::Layout* layout_;
  GpuHealth* health_;
  sim::EventQueue* queue_;
  Listener listener_;
  Predictor predictor_;
  std::function<bool(int mode, hardware::GpuRange gpus)> paused_;
  std::vector<Process> processes_;
  std::uint64_t next_id_ = 0;
  std::uint64_t discarded_ = 0;

  void schedule_poisson(Process& p);
  void schedule_weibull(Process& p);
  /// False when the pause filter discarded the strike.
  bool strike(Process& p, int unit);
  sim::Tick draw_lifetime(Process& p, int unit);
  double lemon_factor(const Process& p, int unit) const;
};

} // namespace dcsim::failure
