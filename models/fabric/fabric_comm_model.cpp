#include "models/fabric/fabric_comm_model.hpp"

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

} // namespace

FabricCommModel::FabricCommModel(const FabricPlatform& fabric, AlphaBetaCommModel::Params params,
                                 double nic_efficiency_frac, Placement placement)
    : fabric_(&fabric), params_(params),
      nic_efficiency_frac_(nic_efficiency_frac), placement_(std::move(placement)) {}

std::uint64_t FabricCommModel::leaf_count_key(int count) {
  return count == 0 ? 0 : splitmix64(static_cast<std::uint64_t>(count));
}

FabricCommModel::Pattern FabricCommModel::pattern_of(Collective kind) {
  switch (kind) {
  case Collective::ALL_TO_ALL: return Pattern::ALL_TO_ALL;
  case Collective::SEND_RECV: return Pattern::PAIR;
  default: return Pattern::RING;
  }
}

std::uint64_t FabricCommModel::fabric_state() const {
  std::uint64_t h = mix(1469598103934665603ULL, placement_key_);
  h = mix(h, std::bit_cast<std::uint64_t>(scale_out_bw_frac_));
  return mix(h, std::bit_cast<std::uint64_t>(leaf_bw_frac_));
}

std::uint64_t FabricCommModel::state_signature() const {
  std::uint64_t h = mix(fabric_state(), std::bit_cast<std::uint64_t>(nvlink_bw_frac_));
  for (std::size_t a = 0; a < shared_.size(); ++a) // alone (all 1): today's signature
    if (shared_[a] != 1.0) h = mix(mix(h, 0x5eed + a), std::bit_cast<std::uint64_t>(shared_[a]));
  return h;
}

double FabricCommModel::time_s(Collective kind, const CommGroup& group, double bytes) const {
  if (group.ranks <= 1 || bytes <= 0) return 0.0;
  const double n = group.ranks;
  const double k = std::clamp(group.ranks_per_domain, 1, group.ranks);
  if (k >= n) { // within one NVLink domain: no fabric
    AlphaBetaCommModel nvlink(params_);
    nvlink.set_nvlink_bw_frac(nvlink_bw_frac_);
    return nvlink.time_s(kind, group, bytes);
  }
  const double beta = measured_s_per_byte(kind, group);
  if (!(beta > 0)) { // nothing could be played (every flow blocked): the alpha-beta figure
    AlphaBetaCommModel fallback(params_);
    fallback.set_scale_out_bw_frac(scale_out_bw_frac_);
    fallback.set_nvlink_bw_frac(nvlink_bw_frac_);
    return fallback.time_s(kind, group, bytes);
  }
  const double b_nvl = params_.nvlink_bytes_per_s * nvlink_bw_frac_;
  const double a_nvl = params_.nvlink_latency_s, a_net = params_.scale_out_latency_s;
  const double domains = std::ceil(n / k);
  // The fabric's share of the collective, slowed by other jobs' flows on its links (1 alone).
  const double net_s = bytes * beta / nic_efficiency_frac_ * shared_[static_cast<std::size_t>(group.axis)];
  switch (kind) {
  case Collective::ALL_REDUCE:
    return 2 * ring_rs_s(k, bytes, b_nvl, a_nvl) + 2 * ((domains - 1) * a_net + net_s);
  case Collective::REDUCE_SCATTER:
  case Collective::ALL_GATHER:
    return ring_rs_s(k, bytes, b_nvl, a_nvl) + (domains - 1) * a_net + net_s;
  case Collective::ALL_TO_ALL:
    return (n - 1) * a_net + std::max((k - 1) / n * bytes / b_nvl, net_s);
  case Collective::SEND_RECV:
    return a_net + net_s;
  }
  return 0.0;
}

double FabricCommModel::measured_bytes_per_s(Collective kind, const CommGroup& group) const {
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

double FabricCommModel::measured_s_per_byte(Collective kind, const CommGroup& group) const {
  const std::uint64_t state = fabric_state();
  auto key = [state](Pattern pattern, int ranks, int stride) {
    return ShapeKey{state, static_cast<int>(pattern), ranks, stride};
  };
  const Pattern pattern = pattern_of(kind);
  if (auto it = measured_.find(key(pattern, group.ranks, group.stride)); it != measured_.end()) return it->second;

  // A miss: probe this shape and every expected one not known in this state.
  std::vector<Shape> shapes{{pattern, group.ranks, group.stride}};
  for (const CommGroup& g : expected_) {
    if (g.ranks <= 1 || std::clamp(g.ranks_per_domain, 1, g.ranks) >= g.ranks) continue;
    const Pattern gp = g.axis == GroupAxis::EP   ? Pattern::ALL_TO_ALL
                       : g.axis == GroupAxis::PP ? Pattern::PAIR
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
  const std::vector<int> rank_gpus = placement_();
  for (const Shape& shape : shapes) {
    const std::array<double, 2> values = play(shape, rank_gpus);
    measured_[ShapeKey{state, static_cast<int>(shape.pattern), shape.ranks, shape.stride}] = values[0];
    flows_played_ += static_cast<long long>(values[1]);
  }
  ++probes_;
}

std::array<double, 2> FabricCommModel::play(const Shape& shape, const std::vector<int>& rank_gpus) const {
  // Can flows of different groups meet? Only on a bundle that is on routes (then every group is played).
  const ClosPlan& plan = fabric_->graph().plan();
  bool all_groups = false;
  for (int gpu : rank_gpus) {
    const int leaf = plan.leaf_of(gpu);
    if (fabric_->leaf_bundle_in_routes(leaf) || fabric_->pod_bundle_in_routes(plan.pod_of_leaf(leaf))) {
      all_groups = true;
      break;
    }
  }
  const FlowPattern pattern = shape.pattern == Pattern::RING         ? FlowPattern::RING
                              : shape.pattern == Pattern::ALL_TO_ALL ? FlowPattern::ALL_TO_ALL
                                                                     : FlowPattern::PAIR;
  const CollectiveFlows cf = collective_flows(*fabric_, pattern, shape.ranks, shape.stride, rank_gpus, all_groups);
  if (cf.flows.empty()) return {0.0, 0.0};
  return {collective_beta(cf, fabric_rates(*fabric_, cf.flows)), static_cast<double>(cf.flows.size())};
}

} // namespace dcsim::fabric
