// Closed forms of queueing theory the request-level play is checked against, and the fluid mode.
//
//   M/D/1 mean wait     W_q = ρ / (2μ(1 − ρ)),            ρ = λ/μ, service 1/μ fixed
//   M/M/c Erlang C      P_wait = [a^c/c! · c/(c − a)] / [Σ_{k<c} a^k/k! + a^c/c! · c/(c − a)],  a = λ/μ
//                       W_q = P_wait / (cμ − λ)
// Fluid mode (the long run, from a cached operating curve): a pool of n instances serves λ requests/s of
// OSL output tokens at the operating point with the largest batch whose TPOT meets the SLO; its capacity
// is n · B / (TPOT · OSL) requests/s, and by Little's law the batch in flight is λ · OSL · TPOT(B) —
// the smallest curve point whose throughput covers λ gives the TPOT users see.
#pragma once

#include "models/serving/perf_model.hpp"
#include "models/serving/request_play.hpp"

namespace dcsim::serving {

double md1_mean_wait_s(double arrival_per_s, double service_s);
double erlang_c_wait_probability(int servers, double arrival_per_s, double service_rate_per_s);
double mmc_mean_wait_s(int servers, double arrival_per_s, double service_rate_per_s);

struct FluidState {
  double capacity_req_per_s = 0; ///< the most requests/s the pool serves within the TPOT SLO
  double served_req_per_s = 0;   ///< min(λ, capacity)
  double tpot_s = 0;             ///< TPOT at the load (the SLO point's when overloaded)
  double ttft_s = 0;             ///< prefill at that point, no queueing
  double output_tokens_per_s_per_gpu = 0;
  bool meets_slo = false;        ///< λ within capacity (and a point meets the TPOT SLO at all)
};

/// The request-level play's iteration cost of an instance of `model` for isl/osl requests (its decode step
/// at the mean context isl + osl/2, its prefill cost per token, its largest batch and chunk).
IterationCost iteration_cost(const PerfModel& model, int isl, int osl);

/// The fluid state of `instances` instances on `curve` under λ requests/s and a TPOT SLO.
FluidState fluid_state(const OperatingCurve& curve, int instances, double arrival_req_per_s, double tpot_slo_s);

} // namespace dcsim::serving
