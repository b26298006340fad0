#include "sim/rng.hpp"

#include <cmath>
#include <numbers>

namespace dcsim::sim {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

} // namespace

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t replica, std::string_view name) {
  std::uint64_t state = seed;
  std::uint64_t a = splitmix64(state);
  state = a ^ (replica * 0xd1b54a32d192ed03ULL);
  std::uint64_t b = splitmix64(state);
  state = b ^ fnv1a64(name);
  return splitmix64(state);
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : s_)
    word = splitmix64(state);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() {
  // 52 random mantissa bits, shifted by half a step: values (k + 0.5) / 2^52, strictly inside (0, 1).
  return (static_cast<double>(next_u64() >> 12) + 0.5) * 0x1.0p-52;
}

std::uint64_t Rng::below(std::uint64_t n) {
  if (n <= 1) return 0;
  // Lemire, "Fast random integer generation in an interval" (2019).
  unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::exponential(double rate) { return -std::log(uniform01()) / rate; }

double Rng::normal() {
  const double u1 = uniform01();
  const double u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }

double Rng::weibull(double shape, double scale) { return scale * std::pow(-std::log(uniform01()), 1.0 / shape); }

double Rng::gamma(double shape) {
  if (shape < 1.0) return gamma(shape + 1.0) * std::pow(uniform01(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform01();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

} // namespace dcsim::sim
