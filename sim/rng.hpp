// Named, seeded random streams.
//
// Every random draw in dcsim comes from a stream named after what it drives ("failure/gpu-hbm",
// "repair/gpu-hbm" ...). A stream's seed is derived from (scenario seed, replica index, stream name) by
// hashing, so adding or removing one stream never shifts the draws of another, and a replica's history
// does not depend on which process or in which order it runs.
//
// Generator: xoshiro256** (Blackman & Vigna, 2018), seeded through SplitMix64. Distributions are written
// out here rather than taken from <random>, whose distribution algorithms differ between standard
// libraries. With the same build on the same platform, outputs are byte-identical; across platforms
// they can differ only through libm's last-bit rounding of log, pow or cos.
#pragma once

#include <cstdint>
#include <string_view>

namespace dcsim::sim {

/// 64-bit FNV-1a hash of a string (stable across platforms and runs).
std::uint64_t fnv1a64(std::string_view text);

/// Seed of stream `name` for replica `replica` of a scenario seeded with `seed`.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t replica, std::string_view name);

class Rng {
public:
  explicit Rng(std::uint64_t seed);
  Rng(std::uint64_t seed, std::uint64_t replica, std::string_view name) : Rng(stream_seed(seed, replica, name)) {}

  std::uint64_t next_u64();
  /// Uniform on the open interval (0, 1): never returns 0 or 1, so logarithms are safe.
  double uniform01();
  /// Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n);
  bool bernoulli(double p) { return uniform01() < p; }
  /// Exponential with the given rate (events per unit time); mean 1/rate.
  double exponential(double rate);
  /// Standard normal (Box-Muller; the second value of each pair is discarded for simplicity of state).
  double normal();
  /// Log-normal whose logarithm has mean `mu` and standard deviation `sigma`.
  double lognormal(double mu, double sigma);
  /// Weibull with shape k and scale lambda: F(x) = 1 - exp(-(x/lambda)^k).
  double weibull(double shape, double scale);
  /// Gamma with the given shape and scale 1 (Marsaglia & Tsang, ACM TOMS 26(3), 2000; shape < 1 by
  /// Gamma(a) = Gamma(a + 1) * U^(1/a)).
  double gamma(double shape);

private:
  std::uint64_t s_[4];
};

} // namespace dcsim::sim
