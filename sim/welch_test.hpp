// Welch's unequal-variances t-test: is the difference between the means of two independent samples
// (e.g. a metric's replicas in two runs) statistically significant?
//
//   t   = (mean_b − mean_a) / √(s_a²/n_a + s_b²/n_b)
//   dof = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a−1) + (s_b²/n_b)²/(n_b−1))   (Welch–Satterthwaite)
//   p   = 2 · (1 − F_t(|t|; dof))                                                  (two-sided)
// NaN values are left out. With fewer than 2 values on either side there is no test (`testable` false).
// When both samples have zero variance the test degenerates: equal means give p = 1, different means
// p = 0 (two deterministic results that differ differ for certain).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace dcsim::sim {

struct WelchResult {
  bool testable = false;
  double mean_a = 0, mean_b = 0;
  double t = 0;
  double dof = 0;
  double p_two_sided = 1; ///< 1 when not testable
  std::size_t n_a = 0, n_b = 0;
};

WelchResult welch_t_test(std::span<const double> a, std::span<const double> b);

/// The paired t-test, for two samples drawn with common random numbers (two runs sharing seeds: pair i
/// of `a` and `b` is replica i of each). With d_i = b_i − a_i over the n pairs where neither is NaN:
///   t = mean(d) / (s_d / √n),  dof = n − 1,  p = 2 · (1 − F_t(|t|; dof))
/// Pairs share most of their noise, so s_d is much smaller than the two samples' spread and the test
/// far sharper than Welch's. `a` and `b` must have the same length. Fewer than 2 pairs: not testable.
/// All d_i equal: p = 1 when they are 0, else 0 (a deterministic difference). Returned as a WelchResult
/// (mean_a, mean_b over the pairs; n_a = n_b = n).
WelchResult paired_t_test(std::span<const double> a, std::span<const double> b);

/// Holm–Bonferroni step-down adjustment of p-values (family-wise error control): the adjusted p of the
/// k-th smallest of m values is max over j ≤ k of min(1, (m − j + 1) · p_(j)). Same order as the input.
std::vector<double> holm_adjust(const std::vector<double>& p_values);

} // namespace dcsim::sim
