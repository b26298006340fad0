#include "models/fabric/fabric_comm_model.hpp"

#include "sim/process_pool.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace dcsim::fabric {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) { // FNV-1a over 64-bit words
  h ^= v;
  return h * 1099511628211ULL;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Rates are read over WINDOW_S, starting SETTLE_S plus twice the longest route latency after the flows
// start (latencies are microseconds), long before a flow of PROBE_BYTES could end (seconds).
constexpr double SETTLE_S = 1e-3;
constexpr double WINDOW_S = 1e-3;

} // namespace

FabricCommModel::FabricCommModel(const FabricPlatform& fabric, workload::AlphaBetaCommModel::Params params,
                                 double nic_efficiency_frac, Placement placement)
    : fabric_(&fabric), params_(params),
      nic_efficiency_frac_(nic_efficiency_frac), placement_(std::move(placement)) {}

std::uint64_t FabricCommModel::leaf_count_key(int count) {
  return count == 0 ? 0 : splitmix64(static_cast<std::uint64_t>(count));
}

FabricCommModel::Pattern FabricCommModel::pattern_of(workload::Collective kind) {
  switch (kind) {
  case workload::Collective::ALL_TO_ALL: return Pattern::ALL_TO_ALL;
  case workload::Collective::SEND_RECV: return Pattern::PAIR;
  default: return Pattern::RING;
  }
}

std::uint64_t FabricCommModel::fabric_state() const {
  std::uint64_t h = mix(1469598103934665603ULL, placement_key_);
  h = mix(h, std::bit_cast<std::uint64_t>(scale_out_bw_frac_));
  return mix(h, std::bit_cast<std::uint64_t>(leaf_bw_frac_));
}

std::uint64_t FabricCommModel::state_signature() const {
  return mix(fabric_state(), std::bit_cast<std::uint64_t>(nvlink_bw_frac_));
}

double FabricCommModel::time_s(workload::Collective kind, const workload::CommGroup& group, double bytes) const {
  if (group.ranks <= 1 || bytes <= 0) return 0.0;
  const double n = group.ranks;
  const double k = std::clamp(group.ranks_per_domain, 1, group.ranks);
  if (k >= n) { // within one NVLink domain: no fabric
    workload::AlphaBetaCommModel nvlink(params_);
    nvlink.set_nvlink_bw_frac(nvlink_bw_frac_);
    return nvlink.time_s(kind, group, bytes);
  }
  const double beta = measured_s_per_byte(kind, group);
  if (!(beta > 0)) { // nothing could be played (every flow blocked): the alpha-beta figure
    workload::AlphaBetaCommModel fallback(params_);
    fallback.set_scale_out_bw_frac(scale_out_bw_frac_);
    fallback.set_nvlink_bw_frac(nvlink_bw_frac_);
    return fallback.time_s(kind, group, bytes);
  }
  const double b_nvl = params_.nvlink_bytes_per_s * nvlink_bw_frac_;
  const double a_nvl = params_.nvlink_latency_s, a_net = params_.scale_out_latency_s;
  const double domains = std::ceil(n / k);
  const double net_s = bytes * beta / nic_efficiency_frac_; // the fabric's share of the collective
  switch (kind) {
  case workload::Collective::ALL_REDUCE:
    return 2 * workload::ring_rs_s(k, bytes, b_nvl, a_nvl) + 2 * ((domains - 1) * a_net + net_s);
  case workload::Collective::REDUCE_SCATTER:
  case workload::Collective::ALL_GATHER:
    return workload::ring_rs_s(k, bytes, b_nvl, a_nvl) + (domains - 1) * a_net + net_s;
  case workload::Collective::ALL_TO_ALL:
    return (n - 1) * a_net + std::max((k - 1) / n * bytes / b_nvl, net_s);
  case workload::Collective::SEND_RECV:
    return a_net + net_s;
  }
  return 0.0;
}

double FabricCommModel::measured_bytes_per_s(workload::Collective kind, const workload::CommGroup& group) const {
  const double beta = measured_s_per_byte(kind, group);
  if (!(beta > 0)) return 0.0;
  const double n = group.ranks, k = std::clamp(group.ranks_per_domain, 1, group.ranks), d = std::ceil(n / k);
  switch (pattern_of(kind)) {
  case Pattern::RING: return (d - 1) / (d * k * beta);
  case Pattern::ALL_TO_ALL: return (n - k) / (n * beta);
  case Pattern::PAIR: return 1.0 / beta;
  }
  return 0.0;
}

double FabricCommModel::measured_s_per_byte(workload::Collective kind, const workload::CommGroup& group) const {
  const std::uint64_t state = fabric_state();
  auto key = [state](Pattern pattern, int ranks, int stride) {
    return ShapeKey{state, static_cast<int>(pattern), ranks, stride};
  };
  const Pattern pattern = pattern_of(kind);
  if (auto it = measured_.find(key(pattern, group.ranks, group.stride)); it != measured_.end()) return it->second;

  // A miss: probe this shape and every expected one not known in this state.
  std::vector<Shape> shapes{{pattern, group.ranks, group.stride}};
  for (const workload::CommGroup& g : expected_) {
    if (g.ranks <= 1 || std::clamp(g.ranks_per_domain, 1, g.ranks) >= g.ranks) continue;
    const Pattern gp = g.axis == workload::GroupAxis::EP   ? Pattern::ALL_TO_ALL
                       : g.axis == workload::GroupAxis::PP ? Pattern::PAIR
                                                           : Pattern::RING;
    const bool listed = std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) {
      return s.pattern == gp && s.ranks == g.ranks && s.stride == g.stride;
    });
    if (!listed && !measured_.contains(key(gp, g.ranks, g.stride))) shapes.push_back({gp, g.ranks, g.stride});
  }
  probe(shapes);
  return measured_.at(key(pattern, group.ranks, group.stride));
}

void FabricCommModel::probe(const std::vector<Shape>& shapes) const {
  const std::uint64_t state = fabric_state();
  for (const Shape& shape : shapes) { // one child per shape: its flows stay in flight in that child
    const std::string reply = sim::run_in_child([&] {
      const std::array<double, 2> values = play(shape, placement_());
      std::string out(sizeof values, '\0');
      std::memcpy(out.data(), values.data(), out.size());
      return out;
    });
    std::array<double, 2> values{};
    if (reply.size() != sizeof values) throw std::logic_error("FabricCommModel: malformed probe reply");
    std::memcpy(values.data(), reply.data(), reply.size());
    measured_[ShapeKey{state, static_cast<int>(shape.pattern), shape.ranks, shape.stride}] = values[0];
    flows_played_ += static_cast<long long>(values[1]);
  }
  ++probes_;
}

namespace {

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

std::array<double, 2> FabricCommModel::play(const Shape& shape, const std::vector<int>& rank_gpus) const {
  const ClosPlan& plan = fabric_->graph().plan();
  const hardware::Layout& layout = plan.layout();
  const int G = static_cast<int>(rank_gpus.size());

  // Can flows of different groups meet? Only on a bundle that is on routes. The network is probed, not
  // the GPUs: a member that is down (the job is recovering) sends as usual; one cut off from the fabric
  // sends nothing (the job is interrupted, not slowed, while it is).
  bool all_groups = false;
  std::vector<char> degraded(at(G), 0), usable(at(G), 1);
  for (int r = 0; r < G; ++r) {
    const int gpu = rank_gpus[at(r)];
    const int leaf = plan.leaf_of(gpu);
    if (fabric_->leaf_bundle_in_routes(leaf) || fabric_->pod_bundle_in_routes(plan.pod_of_leaf(leaf)))
      all_groups = true;
    degraded[at(r)] = fabric_->bw_frac(gpu) < 1.0;
    usable[at(r)] = !fabric_->cut_off(gpu);
  }

  const int n = shape.ranks, s = shape.stride;
  ProbeFlows pf{rank_gpus, usable, {}, {}, std::vector<double>(at(G), 0.0)};
  if (shape.pattern == Pattern::PAIR)
    pair_flows(pf, plan, degraded, all_groups, s);
  else
    group_flows(pf, layout, degraded, all_groups, shape.pattern == Pattern::RING, n, s);
  const auto& flows = pf.flows;
  const auto& sender = pf.sender;
  const auto& weight = pf.weight;
  if (flows.empty()) return {0.0, 0.0};
  const std::vector<double> rates =
      fabric_->platform().rates_isolated(flows, SETTLE_S + 2 * fabric_->max_route_latency_s(), WINDOW_S);
  std::vector<double> member_s(at(G), 0.0); // each member's slowest flow at these rates
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (!(rates[f] > 0)) continue; // blocked (a link on its route is off): not a rate
    member_s[at(sender[f])] = std::max(member_s[at(sender[f])], flows[f].bytes / rates[f]);
  }
  double beta = 0.0; // seconds per byte of S: the slowest member sets the pace
  for (int r = 0; r < G; ++r)
    beta = std::max(beta, member_s[at(r)] * weight[at(r)] / PROBE_BYTES);
  return {beta, static_cast<double>(flows.size())};
}

} // namespace dcsim::fabric
