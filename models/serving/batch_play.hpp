// Batch-level play of an aggregated serving pool: the request-level play (models/serving/request_play.hpp)
// stepped one continuous-batching iteration at a time, with requests held in groups instead of one by one.
//
// What it keeps exact: the iterations (t_it = decode_step_s(decodes) + prefill_tokens · prefill_s_per_token,
// Sarathi-Serve's stall-free batching), admission from one FCFS queue up to max_batch per instance, the FCFS
// prefill token stream in chunks of chunk_tokens − decodes, the decode of fixed-length outputs (a request
// whose first token came at iteration i finishes at iteration i + osl − 1), failures (a struck instance's
// requests lose their KV, return to the queue's head and prefill again: retried) and the instance's return.
// Since an iteration admits only at its start, the requests that arrive while every instance is busy are
// admitted together at the next iteration's end: they are one group.
// What it approximates: arrivals are Poisson (stream "serving/arrivals"), drawn as one count per interval
// between two iteration ends (Poisson(λ·Δ), Knuth's product of uniforms) and placed at their expected order
// statistics within the interval: member j of c arriving over [a0, a1] at a0 + (j + ½)(a1 − a0)/c; the first
// arrival after an idle spell is drawn exactly (exponential gap), so an idle pool starts on it. A request's
// TTFT is therefore off by at most the interval it arrived in (one iteration, t_it) against the
// request-level play's, and its TPOT is exact. Groups add their TTFT to the results as at most two points
// of equal weight (the midpoints of the members' halves: a further error of at most (a1 − a0)/4).
// Cost: O(iterations + groups) per window instead of O(requests · log requests) events (a window of 20,000
// requests at batch ~6,000 takes ~4,000 iterations).
// Steady start (steady_start): instead of filling the pool from empty (a warm-up of a request's life or
// more), each instance starts in the fluid steady state of its share λ/k of the arrivals: per iteration of
// t_it it admits and prefills a = (λ/k)·t_it requests, and a requests sit at each of the osl − 1 decode
// steps, so
//     t_it = decode_step_s(a·(osl − 1)) + a·isl·prefill_s_per_token        (solved by fixed-point iteration)
// (a·(osl − 1) capped at max_batch and a·isl at the chunk's prefill budget when the load exceeds them). The
// requests already decoding (a per step, rounded with a carry) arrived before the play: not measured, but
// lost and retried like the others when a failure strikes.
// Only the aggregated pool with fixed output lengths (the service timeline's windows) is played here;
// geometric lengths and disaggregation stay with play_requests, the reference this is tested against.
#pragma once

#include "models/serving/request_play.hpp"

#include <utility>
#include <vector>

namespace dcsim::serving {

struct BatchPlayResult {
  double completed = 0; ///< measured requests (arrived at or after measure_from_s) that finished
  double met = 0;       ///< of them, those meeting both SLOs
  double retried = 0;   ///< requests restarted after a failure
  double arrived = 0;   ///< requests that arrived (measured or not)
  double duration_s = 0;
  /// (value, weight) of the measured requests' TTFT and TPOT.
  std::vector<std::pair<double, double>> ttft_s, tpot_s;
  double ttft_mean_s() const;
  double tpot_mean_s() const;
  /// The weighted q-quantile of `samples` (the smallest value whose cumulative weight reaches q).
  static double quantile(std::vector<std::pair<double, double>> samples, double q);
};

/// Plays `spec` (aggregated, fixed osl: spec.disaggregated and spec.geometric_osl must be false) with `cost`.
BatchPlayResult play_batches(const PlaySpec& spec, const IterationCost& cost, bool steady_start = false);

} // namespace dcsim::serving
