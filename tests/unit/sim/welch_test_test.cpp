#include "sim/welch_test.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace dcsim::sim;

TEST_CASE("Welch's t-test matches R's t.test", "[sim][stats]") {
  // R: t.test(c(2,4,6,8,10), c(1,2,3,4,5)) -> t = 1.8974, df = 5.8824, p-value = 0.1075.
  // By hand: means 6 and 3, variances 10 and 2.5; se² = 10/5 + 2.5/5 = 2.5; t = 3/√2.5 = 1.8974;
  // dof = 2.5² / ((2)²/4 + (0.5)²/4) = 6.25 / 1.0625 = 5.8824.
  const std::vector<double> a{1, 2, 3, 4, 5}, b{2, 4, 6, 8, 10};
  const WelchResult r = welch_t_test(a, b);
  REQUIRE(r.testable);
  CHECK(r.t == Approx(1.8974).epsilon(1e-4));
  CHECK(r.dof == Approx(5.8824).epsilon(1e-4));
  CHECK(r.p_two_sided == Approx(0.1075).epsilon(2e-3));
}

TEST_CASE("Welch's t-test: NaN left out, degenerate and untestable samples", "[sim][stats]") {
  const double nan = std::nan("");
  const std::vector<double> same{2, 2, 2}, other{3, 3, nan, 3}, one{1};
  CHECK(welch_t_test(same, same).p_two_sided == 1.0);
  const auto differ = welch_t_test(same, other);
  CHECK(differ.n_b == 3);
  CHECK(differ.p_two_sided == 0.0);
  CHECK_FALSE(welch_t_test(one, same).testable);
}

TEST_CASE("Holm adjustment", "[sim][stats]") {
  // sorted: 0.005×4 = 0.02, 0.01×3 = 0.03, 0.03×2 = 0.06, 0.04×1 = 0.04 -> running max 0.06.
  const auto adj = holm_adjust({0.01, 0.04, 0.03, 0.005});
  CHECK(adj[0] == Approx(0.03));
  CHECK(adj[1] == Approx(0.06));
  CHECK(adj[2] == Approx(0.06));
  CHECK(adj[3] == Approx(0.02));
  CHECK(holm_adjust({0.9, 0.8})[0] == 1.0);
}

TEST_CASE("paired t-test against a hand computation (3 pairs: a closed form)", "[sim][stats]") {
  // d = b − a = {0.5, 0, 0.7}: mean 0.4, s_d² = (0.01 + 0.16 + 0.09)/2 = 0.13, t = 0.4/√(0.13/3) = 1.92154.
  // With 2 degrees of freedom F_t has a closed form: p = 1 − |t|/√(t² + 2) = 0.194613.
  const std::vector<double> a{1, 2, 3}, b{1.5, 2.0, 3.7};
  const WelchResult r = paired_t_test(a, b);
  REQUIRE(r.testable);
  CHECK(r.dof == 2);
  CHECK(r.t == Approx(1.9215378).epsilon(1e-6));
  CHECK(r.p_two_sided == Approx(0.19461273).epsilon(1e-6));
  // The same numbers unpaired: the replicas' spread (variance ~1) swamps the shift, Welch sees nothing.
  CHECK(welch_t_test(a, b).p_two_sided > 0.6);
}

TEST_CASE("paired t-test: NaN pairs left out, equal and shifted samples", "[sim][stats]") {
  const double nan = std::nan("");
  const std::vector<double> a{1, 2, 3, nan}, same{1, 2, 3, 4}, shifted{2, 3, 4, 5};
  CHECK(paired_t_test(a, same).n_a == 3);
  CHECK(paired_t_test(a, same).p_two_sided == 1.0);
  CHECK(paired_t_test(a, shifted).p_two_sided == 0.0); // every pair differs by exactly 1
  CHECK_FALSE(paired_t_test(std::vector<double>{1}, std::vector<double>{2}).testable);
}
