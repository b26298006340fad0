#include "models/fabric/collective_flows.hpp"

#include "models/fabric/max_min.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace dcsim::fabric {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

/// The flows of one probe, each with the member (rank) sending it, and each member's weight w: its time t
/// (its slowest flow at the rates read) costs t x w / Q seconds per byte of S.
///   RING: w = (D − 1)/(D·c), c the members in the sender's domain (it carries S/c over D − 1 steps)
///   ALL_TO_ALL: w = 1/n (it sends (n − c)/n·S as (n − c)·Q)    PAIR: w = 1
struct ProbeFlows {
  const std::vector<int>& rank_gpus;
  const std::vector<char>& usable; ///< per member: not cut off from the fabric
  std::vector<sim::Platform::Flow> flows;
  std::vector<int> sender;
  std::vector<double> weight;
  void add(int from, int to, double bytes, double w) {
    if (!usable[at(from)] || !usable[at(to)]) return;
    flows.push_back({rank_gpus[at(from)], rank_gpus[at(to)], bytes}); // host index = GPU index
    sender.push_back(from);
    weight[at(from)] = w;
  }
};

/// PAIR: pairs crossing domains run alone on their access links unless bundles are on routes: one pair
/// per (source leaf, destination leaf) relation is enough, plus those with a degraded end.
void pair_flows(ProbeFlows& pf, const ClosPlan& plan, const std::vector<char>& degraded, bool all_groups, int s) {
  const hardware::Layout& layout = plan.layout();
  const auto& rank_gpus = pf.rank_gpus;
  const int G = static_cast<int>(rank_gpus.size());
  std::set<std::pair<bool, bool>> seen; // (same leaf, degraded)
  for (int r = 0; r + s < G; ++r) {
    const int a = rank_gpus[at(r)], b = rank_gpus[at(r + s)];
    if (layout.domain_of(a) == layout.domain_of(b)) continue;
    const bool deg = degraded[at(r)] || degraded[at(r + s)];
    if (all_groups || deg || seen.insert({plan.leaf_of(a) == plan.leaf_of(b), deg}).second)
      pf.add(r, r + s, PROBE_BYTES, 1.0);
  }
}

/// RING (`ring`) and ALL_TO_ALL over groups of n ranks at stride s.
void group_flows(ProbeFlows& pf, const hardware::Layout& layout, const std::vector<char>& degraded, bool all_groups,
                 bool ring, int n, int s) {
  const auto& rank_gpus = pf.rank_gpus;
  const int G = static_cast<int>(rank_gpus.size());
  if (n < 2 || G % n != 0) return;
  // Groups differ in how their members split over domains when the stride does not divide the
  // domain: each distinct split is played once (with every group with a degraded member), or every
  // group when bundles are on routes.
  const int groups = G / n;
  std::set<std::vector<int>> splits_seen;
  std::vector<std::vector<int>> buckets; // the group's members by NVLink domain, in rank order
  for (int q = 0; q < groups; ++q) {
    const int base = (q / s) * s * n + q % s;
    bool deg = false;
    buckets.clear();
    int last_domain = -1;
    for (int i = 0; i < n; ++i) {
      const int r = base + i * s;
      deg = deg || degraded[at(r)];
      const int d = layout.domain_of(rank_gpus[at(r)]);
      if (d != last_domain) buckets.emplace_back();
      buckets.back().push_back(r);
      last_domain = d;
    }
    const std::size_t D = buckets.size();
    if (D < 2) continue;
    std::vector<int> split;
    for (const auto& bucket : buckets)
      split.push_back(static_cast<int>(bucket.size()));
    split.push_back(deg ? 1 : 0);
    if (!all_groups && !deg && !splits_seen.insert(split).second) continue;
    for (std::size_t d = 0; d < D; ++d) {
      const double c = static_cast<double>(buckets[d].size());
      for (std::size_t j = 0; j < buckets[d].size(); ++j) {
        if (ring) {
          const auto& next = buckets[(d + 1) % D];
          pf.add(buckets[d][j], next[j % next.size()], PROBE_BYTES,
              (static_cast<double>(D) - 1) / (static_cast<double>(D) * c));
        } else {
          for (std::size_t e = 0; e < D; ++e)
            if (e != d)
              pf.add(buckets[d][j], buckets[e][j % buckets[e].size()],
                  static_cast<double>(buckets[e].size()) * PROBE_BYTES, 1.0 / n);
        }
      }
    }
  }
}

} // namespace

CollectiveFlows collective_flows(const FabricPlatform& fabric, FlowPattern pattern, int ranks, int stride,
                                 const std::vector<int>& rank_gpus, bool all_groups) {
  const ClosPlan& plan = fabric.graph().plan();
  const int G = static_cast<int>(rank_gpus.size());
  // The network is probed, not the GPUs: a member that is down (the job is recovering) sends as usual;
  // one cut off from the fabric sends nothing (the job is interrupted, not slowed, while it is).
  std::vector<char> degraded(at(G), 0), usable(at(G), 1);
  for (int r = 0; r < G; ++r) {
    degraded[at(r)] = fabric.bw_frac(rank_gpus[at(r)]) < 1.0;
    usable[at(r)] = !fabric.cut_off(rank_gpus[at(r)]);
  }
  ProbeFlows pf{rank_gpus, usable, {}, {}, std::vector<double>(at(G), 0.0)};
  if (pattern == FlowPattern::PAIR)
    pair_flows(pf, plan, degraded, all_groups, stride);
  else
    group_flows(pf, plan.layout(), degraded, all_groups, pattern == FlowPattern::RING, ranks, stride);
  return {std::move(pf.flows), std::move(pf.sender), std::move(pf.weight)};
}

std::vector<double> fabric_rates(const FabricPlatform& fabric, const std::vector<sim::Platform::Flow>& flows) {
  const sim::Platform& platform = fabric.platform();
  std::vector<int> local(at(platform.link_count()), -1); // platform link -> index among the links used
  std::vector<double> capacity;
  std::vector<MaxMinFlow> mm(flows.size());
  std::vector<int> route;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    route.clear();
    double latency_s = 0;
    if (!fabric.route(flows[f].src_host, flows[f].dst_host, route, latency_s))
      throw std::logic_error("fabric_rates: a flow within one NVLink domain has no fabric route");
    for (int l : route) {
      if (local[at(l)] < 0) {
        local[at(l)] = static_cast<int>(capacity.size());
        capacity.push_back(platform.link_on(l) ? platform.link_bandwidth(l) : 0.0);
      }
      mm[f].links.push_back(local[at(l)]);
    }
  }
  return max_min_rates(capacity, mm);
}

double collective_beta(const CollectiveFlows& cf, const std::vector<double>& rates) {
  std::vector<double> member_s(cf.weight.size(), 0.0); // each member's slowest flow at these rates
  for (std::size_t f = 0; f < cf.flows.size(); ++f) {
    if (!(rates[f] > 0)) continue; // blocked (a link on its route is off): not a rate
    const auto m = at(cf.sender[f]);
    member_s[m] = std::max(member_s[m], cf.flows[f].bytes / rates[f]);
  }
  double beta = 0.0; // seconds per byte of S: the slowest member sets the pace
  for (std::size_t r = 0; r < member_s.size(); ++r)
    beta = std::max(beta, member_s[r] * cf.weight[r] / PROBE_BYTES);
  return beta;
}

} // namespace dcsim::fabric
