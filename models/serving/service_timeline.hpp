// A served model's requests over a replica's weeks: two timescales (issue 28 item 2).
//
// The long run is fluid, from the operating curve computed once (cached) for the service's instance on
// the scenario's GPU, on serving_capacity's grid of batches 5% apart (so its capacity is the replica's
// rate; the played instances cap their batch at the SLO point, as an engine's max_num_seqs does) (models/serving/queueing.hpp, fluid_state): over an interval of dt seconds with n
// serving instances and λ requests/s (demand tokens/s ÷ OSL),
//     served = min(λ, C_n)·dt,  C_n = n·B_slo/(TPOT(B_slo)·OSL)   (the pool's capacity at the TPOT SLO)
//     met    = served when the point the load runs at (the smallest curve batch whose rate covers λ) has
//              TTFT ≤ ttft_slo_s and TPOT ≤ tpot_slo_s, else 0;  demanded − served are shed (missed)
// and the served requests' TTFT and TPOT are those of that point (no queueing: the fluid mode has none).
// Windows are played request by request where queues matter (models/serving/request_play.hpp):
//   - a failure striking the service: its struck instances lose their requests' KV (retried) and are
//     out until the pool is back to its size (spares at once, then restart_s to load the weights), and
//   - a demand peak: a demand step at which the load λ/C_n reaches peak_window_load_frac (at most one a
//     day).
// A window of window_s plays a sub-pool of k = min(n, k_max) instances (at least the struck ones and one
// more) with arrivals λ·k/n in batch steps (models/serving/batch_play.hpp), starting from the fluid steady
// state of that share (no warm-up); the other n − k instances and the rest of the load stay fluid
// meanwhile. k_max keeps a window's requests under MAX_WINDOW_REQUESTS (k ≥ 1), so a
// failure's share of the sub-pool's capacity is 1/k, not 1/n: windows are pessimistic for pools larger
// than k instances (stated in docs/serving.md). A window identical to one played earlier in the replica
// (sub-pool, rate, requests, struck instances, return) reuses its figures: the same experiment.
// Requests are conserved: every demanded request is served
// in the fluid part, played in a window, or shed when the fluid pool is overloaded.
// A disaggregated service (spec.disaggregation, models/serving/disaggregation.hpp): its n serving
// instances split into n_p prefill and n_d decode instances at the spec's ratio, re-split whenever n
// changes (the operator reassigns roles); the fluid capacity is min(n_p·C_p, n_d·C_d), TTFT the prompt's
// prefill plus the KV hand-off t_h, TPOT the decode-only step at the load's batch. Its windows play the
// sub-pool (k ≥ struck + 2) split the same way with play_requests(disaggregated), the hand-off as
// t_h/ISL per prompt token (the play puts it before the second token), after an unmeasured warm-up of one
// request's lifetime at B_d (t_pf + t_h + OSL·t_dec(B_d); shortened with the window when the window would
// exceed its request cap, so that a failure may then find the pool not yet full); each struck instance belongs to the
// prefill pool with probability n_p/k (stream "serving/disagg_strike"), else to the decode pool, and a
// pool keeps at least one instance serving.
// Latencies are kept in a weighted histogram of 50 log-spaced bins per decade from 10 µs to 10^5 s
// (a percentile is the geometric centre of its bin: within 2.3% of the value).
#pragma once

#include "models/hardware/spec.hpp"
#include "models/serving/perf_model.hpp"
#include "models/serving/queueing.hpp"
#include "models/serving/spec.hpp"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace dcsim::serving {

class LatencyHistogram {
public:
  void add(double value_s, double weight);
  /// The q-quantile (0 < q < 1) of the added values, weighted; NaN when nothing was added.
  double quantile(double q) const;
  double total_weight() const { return total_; }
  /// Adds `other`'s weights, bin by bin.
  void merge(const LatencyHistogram& other);

private:
  static constexpr int PER_DECADE = 50;
  static constexpr double LOW_S = 1e-5;
  static constexpr int BINS = 10 * PER_DECADE; // 10^-5 … 10^5 s
  std::array<double, BINS> weight_{};
  double total_ = 0;
};

/// What a service's requests did over a run (per replica).
struct ServingTotals {
  double requests_demanded = 0;
  double requests_served = 0;   ///< fluid served + played
  double requests_met = 0;      ///< meeting both SLOs
  double retried_requests = 0;  ///< requests whose KV a failure lost (played in windows)
  int windows = 0;              ///< request-level windows played
  double window_requests = 0;   ///< requests played (measured) in windows
  double ttft_p50_s = 0, ttft_p99_s = 0, tpot_p50_s = 0, tpot_p99_s = 0;
  double prefill_time_frac = 0; ///< share of an instance's time spent on prefill at the SLO point
};

class ServiceTimeline {
public:
  static constexpr double MAX_WINDOW_REQUESTS = 10000;
  static constexpr int MAX_WINDOW_INSTANCES = 8;

  /// `spec` must serve on `hardware` (serving_capacity gave no problem). `seed`: the replica's stream seed.
  ServiceTimeline(const ServingSpec& spec, const hardware::HardwareSpec& hardware, std::uint64_t seed);

  const OperatingCurve& curve() const { return curve_; }
  /// The pool's capacity at the TPOT SLO, requests/s, with `instances` serving.
  double capacity_req_per_s(int instances) const;

  /// The interval [now − dt_s, now) with `instances` serving and λ = demand_req_per_s.
  void advance(double dt_s, int instances, double demand_req_per_s);
  /// A failure struck `lost` of `instances` instances now: opens a window; in an open window whose pool is
  /// not yet whole again, it strikes the played sub-pool (keeping one of its instances serving) and is played
  /// there too (a peak window becomes a failure window); otherwise it stays in the fluid part.
  void on_failure(int instances, double demand_req_per_s, int lost);
  /// A demand step: opens a peak window when the load reaches peak_window_load_frac (one a day at most).
  void on_demand_step(int instances, double demand_req_per_s);
  bool window_open() const { return window_.open; }
  /// Seconds until the open window ends (its close is due then).
  double window_left_s() const { return window_.open ? window_.end_s - now_s_ : 0; }
  /// Plays the open window (called at its end, or at the run's end).
  void close_window();

  ServingTotals totals() const;

private:
  struct Window {
    bool open = false;
    bool failure = false;
    double start_s = 0, end_s = 0; ///< the window's span in the run (after the warm-up)
    double warm_s = 0;             ///< warm-up played before start_s (0: the play starts steady)
    int pool = 0;           ///< n at the open
    int sub_pool = 0;       ///< k
    int lost = 0;           ///< struck instances of the sub-pool
    double rate_req_per_s = 0; ///< λ·k/n
    double back_s = -1;     ///< when the pool was back to its size (−1: not yet)
    std::vector<std::pair<double, int>> strikes; ///< (seconds after start_s, sub-pool instances struck)
  };

  ServingSpec spec_;
  PerfModel model_;
  OperatingCurve curve_;
  IterationCost cost_;
  std::uint64_t seed_;
  double now_s_ = 0;
  double last_peak_s_ = -1e300;
  Window window_;
  ServingTotals totals_;
  LatencyHistogram ttft_, tpot_;
  /// A played window's measured figures, kept for later windows of the same play (same sub-pool, rate,
  /// failure and lengths).
  struct Played {
    int sub_pool = 0, lost = 0, requests = 0;
    double rate_req_per_s = 0, warm_s = 0, back_s = 0;
    std::vector<std::pair<double, int>> strikes;
    double completed = 0, met = 0, retried = 0;
    LatencyHistogram ttft, tpot;
  };
  std::vector<Played> played_;
  double capacity_per_instance_ = 0; ///< C_1 (C_n = n·C_1)
  DisaggregatedFigures disagg_;      ///< with spec.disaggregation
  IterationCost prefill_cost_;       ///< a disaggregated window's prefill instances
  /// The last fluid state and its inputs (the load changes at demand steps and failures only).
  int fluid_instances_ = -1;
  double fluid_demand_ = -1;
  FluidState fluid_state_;

  void open(int instances, double demand_req_per_s, int lost, bool failure);
  void fluid(double dt_s, int instances, double demand_req_per_s);
  PlayResult play_disaggregated(PlaySpec s, const Window& w);
};

} // namespace dcsim::serving
