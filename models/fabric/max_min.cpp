#include "models/fabric/max_min.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>

namespace dcsim::fabric {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
constexpr double REL_EPS = 1e-12; // links whose level ties the minimum to this precision fill together

/// Progressive filling with the links' levels in a min-heap. A link's level left/Σw never falls when
/// flows elsewhere freeze (a flow frozen at s ≤ s_l leaves (left − w·s)/(W − w) ≥ s_l); every change
/// of a link pushes its new level, so an entry whose key differs from the link's current level is
/// stale and dropped when it reaches the top. Each round freezes the same flows, at the same level and in the same order
/// (by flow index), as scanning every link would: the arithmetic, hence every rate, is the same.
class Filling {
public:
  Filling(const std::vector<double>& capacity, const std::vector<MaxMinFlow>& flows)
      : flows_(flows), rate_(flows.size(), 0.0), left_(capacity), weight_on_(capacity.size(), 0.0),
        live_on_(capacity.size(), 0), first_on_(capacity.size() + 1, 0), frozen_(flows.size(), 0),
        touched_mark_(capacity.size(), 0) {
    const std::size_t L = capacity.size();
    for (std::size_t f = 0; f < flows.size(); ++f) {
      const MaxMinFlow& flow = flows[f];
      if (!(flow.weight > 0)) throw std::invalid_argument("max_min_rates: a flow's weight must be > 0");
      bool off = false;
      for (int l : flow.links) {
        if (l < 0 || at(l) >= L) throw std::out_of_range("max_min_rates: link index out of range");
        off = off || !(capacity[at(l)] > 0);
      }
      if (off || flow.links.empty()) { // blocked, or no link: 0 / its cap
        frozen_[f] = 1;
        rate_[f] = off || std::isinf(flow.cap_bytes_per_s) ? 0.0 : flow.cap_bytes_per_s;
        continue;
      }
      for (int l : flow.links) {
        weight_on_[at(l)] += flow.weight;
        ++live_on_[at(l)];
      }
      if (std::isfinite(flow.cap_bytes_per_s)) caps_.emplace_back(flow.cap_bytes_per_s / flow.weight, f);
      ++unfrozen_;
    }
    // Each link's live flows in ascending flow order, as one array (first_on_[l] .. first_on_[l + 1]).
    for (std::size_t l = 0; l < L; ++l)
      first_on_[l + 1] = first_on_[l] + static_cast<std::size_t>(live_on_[l]);
    on_link_.resize(first_on_[L]);
    std::vector<std::size_t> fill(first_on_.begin(), first_on_.end() - 1);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen_[f])
        for (int l : flows[f].links)
          on_link_[fill[at(l)]++] = static_cast<int>(f);
    std::sort(caps_.begin(), caps_.end());
    for (std::size_t l = 0; l < L; ++l)
      push(l);
  }

  std::vector<double> solve() {
    std::vector<std::size_t> to_freeze;
    while (unfrozen_ > 0) {
      const double level = std::min(top_link_level(), top_cap_level());
      to_freeze.clear();
      for (; next_cap_ < caps_.size() && caps_[next_cap_].first <= level * (1 + REL_EPS); ++next_cap_)
        if (const std::size_t f = caps_[next_cap_].second; !frozen_[f]) {
          frozen_[f] = PENDING;
          to_freeze.push_back(f);
        }
      while (!heap_.empty() && heap_.top().first <= level * (1 + REL_EPS) + 1e-300) {
        const std::size_t l = heap_.top().second;
        const double key = heap_.top().first;
        heap_.pop();
        if (!alive(l)) continue;
        if (key != current(l)) continue; // stale: the link's current level has its own entry
        for (std::size_t i = first_on_[l]; i < first_on_[l + 1]; ++i)
          if (const auto f = at(on_link_[i]); !frozen_[f]) {
            frozen_[f] = PENDING; // listed once
            to_freeze.push_back(f);
          }
      }
      if (to_freeze.empty()) throw std::logic_error("max_min_rates: no progress");
      // Frozen in ascending flow order (the order every link's subtraction happens in). One link's
      // flows are already in order: sort only when several lists were joined.
      if (!std::is_sorted(to_freeze.begin(), to_freeze.end())) in_flow_order(to_freeze);
      touched_.clear();
      for (std::size_t f : to_freeze)
        freeze(f, std::min(flows_[f].cap_bytes_per_s, flows_[f].weight * level));
      // Each touched link's new level, once (the heap orders entries by (level, link) whatever the order
      // of pushes, so the rounds do not depend on it).
      for (std::size_t l : touched_) {
        touched_mark_[l] = 0;
        push(l);
      }
    }
    return std::move(rate_);
  }

private:
  using Entry = std::pair<double, std::size_t>; ///< level, link
  const std::vector<MaxMinFlow>& flows_;
  std::vector<double> rate_, left_, weight_on_;
  std::vector<int> live_on_; ///< unfrozen flows per link
  std::vector<std::size_t> first_on_; ///< link l's flows: on_link_[first_on_[l] .. first_on_[l + 1])
  std::vector<int> on_link_;
  static constexpr char PENDING = 2; ///< frozen_: listed to freeze this round
  std::vector<char> frozen_;         ///< 0 live, 1 frozen, PENDING
  std::vector<char> touched_mark_;   ///< per link: in touched_ this round
  std::vector<std::pair<double, std::size_t>> caps_; ///< cap/w, flow; ascending
  std::size_t next_cap_ = 0;
  std::size_t unfrozen_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::vector<std::size_t> touched_;

  /// The listed (PENDING) flows in ascending order: a sort, or a pass over the index range they span
  /// when that is shorter than n·log2(n) (symmetric collectives fill many links at one level at once).
  void in_flow_order(std::vector<std::size_t>& list) const {
    const auto [lo, hi] = std::minmax_element(list.begin(), list.end());
    const std::size_t first = *lo, last = *hi, n = list.size();
    if (last - first + 1 > n * static_cast<std::size_t>(std::bit_width(n))) {
      std::sort(list.begin(), list.end());
      return;
    }
    list.clear();
    for (std::size_t f = first; f <= last; ++f)
      if (frozen_[f] == PENDING) list.push_back(f);
  }
  bool alive(std::size_t l) const { return weight_on_[l] > 0 && live_on_[l] > 0; }
  double current(std::size_t l) const { return left_[l] / weight_on_[l]; }
  void push(std::size_t l) {
    if (alive(l)) heap_.emplace(current(l), l);
  }
  double top_link_level() {
    while (!heap_.empty()) {
      const auto [key, l] = heap_.top();
      if (alive(l) && key == current(l)) return key;
      heap_.pop(); // stale or dead: an alive link's current level has its own entry
    }
    return std::numeric_limits<double>::infinity();
  }
  double top_cap_level() {
    while (next_cap_ < caps_.size() && frozen_[caps_[next_cap_].second])
      ++next_cap_;
    return next_cap_ < caps_.size() ? caps_[next_cap_].first : std::numeric_limits<double>::infinity();
  }
  void freeze(std::size_t f, double x) {
    frozen_[f] = 1;
    rate_[f] = x;
    --unfrozen_;
    for (int l : flows_[f].links) {
      left_[at(l)] = std::max(0.0, left_[at(l)] - x);
      weight_on_[at(l)] -= flows_[f].weight;
      --live_on_[at(l)];
      if (!touched_mark_[at(l)]) {
        touched_mark_[at(l)] = 1;
        touched_.push_back(at(l));
      }
    }
  }
};

} // namespace

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<MaxMinFlow>& flows) {
  return Filling(capacity, flows).solve();
}

} // namespace dcsim::fabric
