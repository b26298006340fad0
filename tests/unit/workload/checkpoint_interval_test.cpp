#include "models/workload/checkpoint_interval.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim::workload;

TEST_CASE("Young's and Daly's intervals", "[unit][checkpoint]") {
  // δ = 60 s, M = 3 h = 10,800 s: Young √(2·60·10,800) = 1,138.4 s.
  CHECK(young_interval_s(60, 10800) == Approx(std::sqrt(2.0 * 60 * 10800)));
  // Daly: 1,138.42 · (1 + ⅓·√(60/21,600) + (1/9)·(60/21,600)) − 60 = 1,138.42 · 1.017877 − 60 = 1,098.77 s.
  CHECK(daly_interval_s(60, 10800) == Approx(1098.77).epsilon(1e-4));
  // Beyond δ >= 2M Daly's interval is M.
  CHECK(daly_interval_s(1000, 400) == 400);
}

TEST_CASE("Daly's estimate is close to the exact optimum of the renewal model", "[unit][checkpoint]") {
  for (double ratio : {1e-4, 1e-3, 1e-2, 5e-2}) { // δ / M
    const double m = 10000, d = ratio * m;
    const double exact = optimal_interval_s(d, m);
    CHECK(daly_interval_s(d, m) == Approx(exact).epsilon(0.01));
    // The optimum maximises the renewal goodput.
    RenewalInputs in{1 / m, 30, 300, exact, d};
    const double g0 = renewal_goodput(in);
    in.interval_s = exact * 1.05;
    CHECK(renewal_goodput(in) < g0);
    in.interval_s = exact * 0.95;
    CHECK(renewal_goodput(in) < g0);
  }
}

TEST_CASE("renewal goodput limits", "[unit][checkpoint]") {
  // No failures: only checkpoint overhead τ/(τ+δ).
  CHECK(renewal_goodput({0, 60, 600, 3600, 36}) == Approx(3600.0 / 3636.0));
  // Tiny failure rate, no detection/restart: first order 1 − δ/τ − λ(τ+δ)/2 ... check against a direct expansion.
  const double l = 1e-7, tau = 1000, delta = 10;
  const double expected = tau / ((1 / l) * std::expm1(l * (tau + delta)));
  CHECK(renewal_goodput({l, 0, 0, tau, delta}) == Approx(expected).epsilon(1e-12));
}
