// Static ECMP hashing: the exact balls-in-bins expectation, and the hash's most-loaded uplink against it.
#include "models/fabric/ecmp_hash.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace dcsim::fabric;

TEST_CASE("expected most-loaded bin: exact small cases", "[fabric][ecmp]") {
  // 2 balls, 2 bins: they collide with probability 1/2 (max 2), else max 1: E = 1.5.
  CHECK(expected_max_load(2, 2) == Approx(1.5).epsilon(1e-12));
  // 3 balls, 3 bins: all apart 6/27 (max 1), all together 3/27 (max 3), else 18/27 (max 2):
  // E = (6 + 36 + 9)/27 = 51/27.
  CHECK(expected_max_load(3, 3) == Approx(51.0 / 27).epsilon(1e-12));
  CHECK(expected_max_load(5, 1) == Approx(5).epsilon(1e-12)); // one bin takes all
  CHECK(expected_max_load(1, 7) == Approx(1).epsilon(1e-12));
  CHECK_THROWS(expected_max_load(151, 4));
}

TEST_CASE("the hash's most-loaded uplink matches the balls-in-bins value", "[fabric][ecmp]") {
  // n connections (distinct source and destination GPUs) hashed onto m uplinks, 4,000 seeds: the mean
  // of the most loaded uplink's count is E[max] within 4 standard errors (the hash is uniform and
  // independent across connections), for n = m = 32 and n = 64 onto m = 16; and (1 − 1/m)^n of the
  // uplinks stay idle on average (→ 1/e for n = m).
  for (auto [n, m] : {std::pair{32, 32}, std::pair{64, 16}}) {
    const int seeds = 4000;
    double sum = 0, sum2 = 0, idle = 0;
    for (int s = 0; s < seeds; ++s) {
      std::vector<int> load(static_cast<std::size_t>(m), 0);
      for (int c = 0; c < n; ++c)
        ++load[ecmp_hash(static_cast<std::uint64_t>(s), c, 1000 + 7 * c, 0, 0) % static_cast<std::uint64_t>(m)];
      const double mx = *std::max_element(load.begin(), load.end());
      sum += mx;
      sum2 += mx * mx;
      idle += static_cast<double>(std::count(load.begin(), load.end(), 0)) / m;
    }
    const double mean = sum / seeds, sd = std::sqrt(sum2 / seeds - mean * mean);
    const double exact = expected_max_load(n, m);
    CHECK(std::abs(mean - exact) < 4 * sd / std::sqrt(seeds));
    const double p_idle = std::pow(1 - 1.0 / m, n);
    CHECK(std::abs(idle / seeds - p_idle) < 0.01);
  }
}
