// Summary statistics across replicas.
//
// A metric's replicas are independent draws (each replica has its own seeds), so its mean has the
// Student-t 95% confidence interval  mean ± t(0.975, n-1) · s / √n,  with s the sample standard
// deviation. Values that are undefined for a replica (NaN, e.g. a mean time between interruptions when
// there were none) are left out, and `n` says how many replicas contributed.
#pragma once

#include <cstddef>
#include <span>

namespace dcsim::sim {

struct Summary {
  double mean = 0.0;
  double ci95_low = 0.0;  ///< NaN when fewer than 2 values
  double ci95_high = 0.0; ///< NaN when fewer than 2 values
  double stddev = 0.0;    ///< sample standard deviation (n-1); NaN when fewer than 2 values
  std::size_t n = 0;      ///< number of defined (non-NaN) values
};

Summary summarize(std::span<const double> values);

/// Two-sided 95% quantile of Student's t with `dof` degrees of freedom: t(0.975, dof).
double student_t95(double dof);

} // namespace dcsim::sim
