// An inference service sharing the cluster with training, and the SUNK-like policy that moves GPUs.
//
// Demand (tokens/s) follows a daily profile, constant over steps of demand_step_h:
//     demand(t) = demand_tokens_per_s · (1 + demand_swing_frac · cos(2π (h(t) − demand_peak_hour) / 24))
// with h(t) the hour of the day at the start of the step; or, with a demand trace, the trace's value
// (piecewise constant, the policy acting at each point). Capacity = serving GPUs × tokens_per_s_per_gpu,
// where serving GPUs are the service's healthy GPUs not still being moved in. With `serving` (a model and
// its instance, models/serving/spec.hpp) the rate is the operating curve's at the TPOT SLO and only whole
// healthy instances of each domain serve: a failed GPU takes its instance out until it is replaced.
// Served tokens integrate min(demand, capacity) exactly between changes; demanded tokens integrate demand.
// With `serving`, a domain's GPUs left over by whole instances (usable GPUs mod instance GPUs) serve
// nothing: they count in the ledger's serving state (held for serving) and in unused_gpu_time, not as down;
// a failure striking the service takes its struck instances out until their GPUs are whole again (repaired,
// or spares swapped in at detection) and then restart_s (weights loaded; the restart counts as down), and its requests are played in a window (models/serving/service_timeline.hpp,
// which also keeps the service's request totals: TTFT/TPOT percentiles, SLO attainment, goodput).
// SUNK policy (sunk: true), at every demand step: the service wants T = clamp(⌈demand / (rate × usable
// GPUs per domain)⌉, min, max) whole domains (with `serving`: ⌈instances needed ÷ whole instances per
// domain⌉, the instance's capacity from the operating curve). If it holds fewer, it takes free domains first, then asks
// the scheduler to reclaim domains from elastic training jobs of lower priority (they give them up at
// their next checkpoint); a domain moved in serves only after move_s. If it holds more than T + 1 (one
// domain of hysteresis), it returns the excess, which training can grow back into. Without SUNK the
// service holds its maximum from the start.
// Load power (with `serving`): the service tells the power model its busy GPU equivalent
//     b = serving GPUs × u,  u = min(λ, C_n) / C_n
// (λ requests/s demanded, C_n the capacity of its n serving instances at the TPOT SLO point: the share of
// the pool's capacity the load uses); the power model draws P_idle + (P_busy − P_idle)·u per serving GPU
// (models/facility/facility_power.hpp). Without `serving` its GPUs draw idle power, as before.
// GPU-time of the service (its share of the cluster ledger): serving, moving (held but not yet
// serving) and down (held but failed), integrated in GPU·µs.
#pragma once

#include "models/hardware/layout.hpp"
#include "models/sched/allocator.hpp"
#include "models/sched/scheduler.hpp"
#include "models/serving/service_timeline.hpp"
#include "models/workload/spec.hpp"
#include "models/workload/workload.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <cstdint>
#include <functional>
#include <memory>

namespace dcsim::workload {

class InferenceService final : public Workload {
public:
  InferenceService(const JobSpec& spec, int job, const hardware::Layout& layout, sched::Allocator& alloc,
                   sched::Scheduler& scheduler, sim::EventQueue& queue, sim::EventLog& log,
                   const hardware::HardwareSpec* hardware = nullptr, std::uint64_t seed = 0);
  ~InferenceService() override;

  /// Takes the initial domains and starts following demand.
  void start();
  /// Something changed the service's GPUs (a failure, a repair, a swap): recount capacity.
  void on_gpus_changed();
  /// Domains came free: a service holding fewer than it wants takes them (SUNK: up to demand; otherwise
  /// up to its size).
  void on_capacity_changed() override;
  /// A failure struck GPUs it holds: it serves on fewer until they are replaced (on_gpus_changed).
  void on_failure(std::uint64_t, int) override;
  /// Nothing waits for detection: the replica replaces a service's down GPUs as soon as it can.
  void on_failure_detected(std::uint64_t) override {}
  /// Closes the integrals at the end of the run.
  void finish() override;

  int job() const { return job_; }
  const JobSpec& spec() const override { return *spec_; }
  double demanded_tokens() const { return demanded_; }
  double served_tokens() const { return served_; }
  GpuTicks serving_gpu_time() const { return serving_; }
  GpuTicks moving_gpu_time() const { return moving_time_; }
  GpuTicks down_gpu_time() const { return down_time_; }
  GpuTicks held_gpu_time() const override { return serving_ + moving_time_ + down_time_; }
  int moves() const { return moves_; }
  double demand_tokens_per_s(sim::Tick at) const;
  int serving_gpus() const { return serving_gpus_; }
  GpuTicks unused_gpu_time() const { return unused_time_; }
  /// Called with b (busy GPU equivalent) whenever the service's load changes (with `serving` only).
  void set_load_hook(std::function<void(double busy_gpus)> hook) { load_hook_ = std::move(hook); }
  /// b = serving GPUs × min(λ, C_n)/C_n now (0 without `serving`).
  double busy_gpus() const;
  /// The request-level totals of a service with `serving` (nullptr without).
  const serving::ServiceTimeline* timeline() const { return timeline_.get(); }

private:
  const JobSpec* spec_;
  int job_;
  const hardware::Layout* layout_;
  sched::Allocator* alloc_;
  sched::Scheduler* scheduler_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;

  sim::Tick since_ = 0;
  double demand_ = 0;      ///< tokens/s in the current step
  int held_gpus_ = 0;
  int healthy_gpus_ = 0;
  int moving_gpus_ = 0;    ///< held, healthy, not serving yet
  int serving_gpus_ = 0;
  int instance_gpus_ = 1;   ///< GPUs of one instance (1 without serving)
  int whole_gpus_ = 0;      ///< healthy GPUs in whole instances
  int unused_gpus_ = 0;     ///< held GPUs of domains left over by whole instances
  int restarting_gpus_ = 0; ///< struck instances restarting
  int pending_restarts_ = 0; ///< struck instances not whole yet: they restart when whole
  GpuTicks unused_time_ = 0;
  std::unique_ptr<serving::ServiceTimeline> timeline_;
  std::function<void(double)> load_hook_;
  void publish_load() const { if (load_hook_ && timeline_) load_hook_(busy_gpus()); }
  int pending_domains_ = 0; ///< asked of the scheduler, not yet received
  int move_epoch_ = 0;      ///< bumped by a shrink: earlier moves' timers no longer apply
  double demanded_ = 0, served_ = 0;
  GpuTicks serving_ = 0, moving_time_ = 0, down_time_ = 0;
  int moves_ = 0;

  void advance();    ///< integrates up to now
  void recount();
  void step(int point); ///< a demand step (point: index of the trace point, -1: the profile): the SUNK policy
  void borrow(int domains); ///< asks the scheduler to reclaim domains from training (SUNK)
  void schedule_step(); ///< the next demand step: demand_step_h on, or the trace's next point
  void take(int domains);
  void count_domains(int& whole, int& unused) const; ///< whole-instance healthy GPUs, leftover GPUs
  void close_window_at_end(); ///< schedules the open window's close
  int wanted_domains() const;
};

} // namespace dcsim::workload
