#include "sim/stats.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using dcsim::sim::summarize;

TEST_CASE("the 95% interval is mean ± t(0.975, n-1)·s/√n", "[unit][stats]") {
  // {1,2,3,4,5}: mean 3, s = √2.5 = 1.58114, t(0.975, 4) = 2.776445, half-width = 2.776445·1.58114/√5 = 1.963243.
  const std::vector<double> v{1, 2, 3, 4, 5};
  const auto s = summarize(v);
  CHECK(s.n == 5);
  CHECK(s.mean == Approx(3.0));
  CHECK(s.stddev == Approx(std::sqrt(2.5)));
  CHECK(s.ci95_low == Approx(3.0 - 1.963243).epsilon(1e-6));
  CHECK(s.ci95_high == Approx(3.0 + 1.963243).epsilon(1e-6));
  CHECK(dcsim::sim::student_t95(4) == Approx(2.776445).epsilon(1e-6));
  CHECK(dcsim::sim::student_t95(1e6) == Approx(1.959966).epsilon(1e-5));
}

TEST_CASE("undefined values are left out and counted", "[unit][stats]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto s = summarize(std::vector<double>{nan, 2.0, nan, 4.0});
  CHECK(s.n == 2);
  CHECK(s.mean == 3.0);
  const auto none = summarize(std::vector<double>{nan});
  CHECK(none.n == 0);
  CHECK(std::isnan(none.mean));
  const auto one = summarize(std::vector<double>{7.0});
  CHECK(one.mean == 7.0);
  CHECK(std::isnan(one.ci95_low));
}

TEST_CASE("identical values summarise to themselves exactly", "[unit][stats]") {
  const auto s = summarize(std::vector<double>(10, 1.075)); // a plain sum would round to 1.0749999999999997
  CHECK(s.mean == 1.075);
  CHECK(s.ci95_low == 1.075);
  CHECK(s.ci95_high == 1.075);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(summarize(std::vector<double>{inf, inf}).mean == inf);
}
