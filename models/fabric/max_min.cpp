#include "models/fabric/max_min.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dcsim::fabric {

namespace {
std::size_t at(int i) { return static_cast<std::size_t>(i); }
constexpr double REL_EPS = 1e-12; // links whose level ties the minimum to this precision fill together
} // namespace

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<MaxMinFlow>& flows) {
  const std::size_t L = capacity.size(), F = flows.size();
  std::vector<double> rate(F, 0.0), left(capacity);
  std::vector<double> weight_on(L, 0.0); // Σ w of unfrozen flows per link
  std::vector<std::vector<int>> on_link(L);
  std::vector<char> frozen(F, 0);
  std::size_t unfrozen = 0;
  for (std::size_t f = 0; f < F; ++f) {
    const MaxMinFlow& flow = flows[f];
    if (!(flow.weight > 0)) throw std::invalid_argument("max_min_rates: a flow's weight must be > 0");
    bool off = false;
    for (int l : flow.links) {
      if (l < 0 || at(l) >= L) throw std::out_of_range("max_min_rates: link index out of range");
      off = off || !(capacity[at(l)] > 0);
    }
    if (off || flow.links.empty()) { // blocked, or no link: 0 / its cap
      frozen[f] = 1;
      rate[f] = off || std::isinf(flow.cap_bytes_per_s) ? 0.0 : flow.cap_bytes_per_s;
      continue;
    }
    for (int l : flow.links) {
      weight_on[at(l)] += flow.weight;
      on_link[at(l)].push_back(static_cast<int>(f));
    }
    ++unfrozen;
  }
  auto freeze = [&](std::size_t f, double x) {
    frozen[f] = 1;
    rate[f] = x;
    --unfrozen;
    for (int l : flows[f].links) {
      left[at(l)] = std::max(0.0, left[at(l)] - x);
      weight_on[at(l)] -= flows[f].weight;
    }
  };
  while (unfrozen > 0) {
    double level = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < L; ++l)
      if (weight_on[l] > 0 && !on_link[l].empty()) level = std::min(level, left[l] / weight_on[l]);
    for (std::size_t f = 0; f < F; ++f)
      if (!frozen[f]) level = std::min(level, flows[f].cap_bytes_per_s / flows[f].weight);
    // Freeze every flow of every link at the level, and every flow whose cap is at the level.
    std::vector<std::size_t> to_freeze;
    for (std::size_t f = 0; f < F; ++f)
      if (!frozen[f] && flows[f].cap_bytes_per_s / flows[f].weight <= level * (1 + REL_EPS)) to_freeze.push_back(f);
    for (std::size_t l = 0; l < L; ++l) {
      if (!(weight_on[l] > 0)) continue;
      if (left[l] / weight_on[l] > level * (1 + REL_EPS) + 1e-300) continue;
      for (int f : on_link[l])
        if (!frozen[at(f)]) to_freeze.push_back(at(f));
    }
    std::sort(to_freeze.begin(), to_freeze.end());
    to_freeze.erase(std::unique(to_freeze.begin(), to_freeze.end()), to_freeze.end());
    if (to_freeze.empty()) throw std::logic_error("max_min_rates: no progress");
    for (std::size_t f : to_freeze)
      freeze(f, std::min(flows[f].cap_bytes_per_s, flows[f].weight * level));
    for (std::size_t l = 0; l < L; ++l) // drop frozen flows from the link lists
      if (!on_link[l].empty())
        std::erase_if(on_link[l], [&](int f) { return frozen[at(f)] != 0; });
  }
  return rate;
}

} // namespace dcsim::fabric
