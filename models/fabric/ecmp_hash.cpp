#include "models/fabric/ecmp_hash.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace dcsim::fabric {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
} // namespace

std::uint64_t ecmp_hash(std::uint64_t seed, int src, int dst, int subflow, int salt) {
  std::uint64_t h = splitmix64(seed ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)));
  h = splitmix64(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 1));
  h = splitmix64(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(subflow)) << 2));
  return splitmix64(h ^ static_cast<std::uint64_t>(salt + 1));
}

double expected_max_load(int balls, int bins) {
  if (balls < 0 || bins < 1 || balls > 150) throw std::invalid_argument("expected_max_load: out of range");
  // P(max ≤ k − 1) = n! · [x^n] (Σ_{j<k} (x/m)^j / j!)^m: the truncated exponential raised to the power
  // m by repeated multiplication, in doubles (n ≤ 150 keeps n! finite).
  const int n = balls;
  double expected = 0;
  for (int k = 1; k <= n; ++k) { // E[max] = Σ_{k≥1} P(max ≥ k) = Σ_{k≥1} (1 − P(max ≤ k − 1))
    std::vector<double> base(static_cast<std::size_t>(n) + 1, 0.0), poly(static_cast<std::size_t>(n) + 1, 0.0);
    double term = 1.0;
    for (int j = 0; j <= std::min(k - 1, n); ++j) {
      base[static_cast<std::size_t>(j)] = term;
      term /= (j + 1) * static_cast<double>(bins);
    }
    poly[0] = 1.0;
    for (int b = 0; b < bins; ++b) {
      std::vector<double> next(poly.size(), 0.0);
      for (int t = 0; t <= n; ++t) {
        if (poly[static_cast<std::size_t>(t)] == 0) continue;
        for (int j = 0; j <= std::min(k - 1, n - t); ++j)
          next[static_cast<std::size_t>(t + j)] += poly[static_cast<std::size_t>(t)] * base[static_cast<std::size_t>(j)];
      }
      poly.swap(next);
    }
    double p_le = poly[static_cast<std::size_t>(n)];
    for (int t = 2; t <= n; ++t)
      p_le *= t; // n!
    const double p_ge = 1.0 - std::min(1.0, p_le);
    if (p_ge < 1e-15) break;
    expected += p_ge;
  }
  return expected;
}

} // namespace dcsim::fabric
