// Weighted max-min fair sharing of link capacities among flows, engine-free (progressive filling).
//
// The same sharing SimGrid's CM02 network model computes for flows started together on dcsim's fabric
// platform (network/TCP-gamma 0, no cross-traffic: a flow's rate is bounded by its links only), over the
// same links and capacities, without a clock, a child process or per-flow engine objects; and with two
// things SimGrid 3.32 cannot give a comm (FABRIC-SHARING.md §3.5, option d): a weight and a rate cap.
//
// Problem: links l with capacity C_l (bytes/s; 0 = off); flows f with a route R_f (a set of links), a
// weight w_f > 0 and a cap b_f (bytes/s, +inf when none). A flow that stands for m identical flows has
// w = m: it gets what the m would get together.
// Solution (weighted max-min): rates x_f with Σ_{f ∋ l} x_f ≤ C_l, x_f ≤ b_f, such that no x_f can grow
// without lowering some x_g with x_g / w_g ≤ x_f / w_f. Progressive filling: raise a common level s
// (rate per unit of weight) for every unfrozen flow until a link is full (s_l = remaining C_l / Σ
// unfrozen w on l) or a cap is met (s_f = b_f / w_f); freeze the flows of the first such link at
// x_f = w_f·s (or the capped flow at b_f); subtract their rates from their links; repeat.
// A flow through a link that is off gets 0 (SimGrid fails it). A flow with an empty route gets its cap
// (0 when it has none: it is not a network flow). Units: bytes/s.
// Cost: O(links + Σ route lengths × log links): the links' levels sit in a heap (max_min.cpp); 254k
// flows over 300k links (a 131k-GPU job's DP rings) solve in a fraction of a second.
#pragma once

#include <limits>
#include <vector>

namespace dcsim::fabric {

struct MaxMinFlow {
  std::vector<int> links; ///< indices into the capacities
  double weight = 1.0;
  double cap_bytes_per_s = std::numeric_limits<double>::infinity();
};

/// The weighted max-min rates of `flows` over links of `capacity_bytes_per_s`, in order.
std::vector<double> max_min_rates(const std::vector<double>& capacity_bytes_per_s, const std::vector<MaxMinFlow>& flows);

} // namespace dcsim::fabric
