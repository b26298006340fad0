#include "models/fabric/fabric_comm_model.hpp"

#include "sim/process_pool.hpp"

#include <algorithm>
#include <array>
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

// Rates are read between these dates after the flows start: past any route latency (microseconds),
// long before a flow of PROBE_BYTES could end (seconds).
constexpr double SETTLE_S = 1e-3;
constexpr double WINDOW_S = 1e-3;

} // namespace

FabricCommModel::FabricCommModel(const FabricPlatform& fabric, sim::Platform& platform,
                                 const hardware::RackPlatform& racks, workload::AlphaBetaCommModel::Params params,
                                 double nic_efficiency_frac, Placement placement)
    : fabric_(&fabric), platform_(&platform), racks_(&racks), params_(params),
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

std::uint64_t FabricCommModel::state_signature() const {
  std::uint64_t h = 1469598103934665603ULL;
  h = mix(h, placement_key_);
  h = mix(h, std::bit_cast<std::uint64_t>(scale_out_bw_frac_));
  return mix(h, std::bit_cast<std::uint64_t>(nvlink_bw_frac_));
}

double FabricCommModel::time_s(workload::Collective kind, const workload::CommGroup& group, double bytes) const {
  if (group.ranks <= 1 || bytes <= 0) return 0.0;
  workload::AlphaBetaCommModel::Params p = params_;
  if (std::clamp(group.ranks_per_domain, 1, group.ranks) < group.ranks) { // crosses domains: the fabric
    const double measured = measured_bytes_per_s(kind, group);
    p.scale_out_bytes_per_s =
        measured > 0 ? measured * nic_efficiency_frac_ : params_.scale_out_bytes_per_s * scale_out_bw_frac_;
  }
  workload::AlphaBetaCommModel formulas(p);
  formulas.set_nvlink_bw_frac(nvlink_bw_frac_);
  return formulas.time_s(kind, group, bytes);
}

double FabricCommModel::measured_bytes_per_s(workload::Collective kind, const workload::CommGroup& group) const {
  std::uint64_t fabric_state = mix(1469598103934665603ULL, placement_key_);
  fabric_state = mix(fabric_state, std::bit_cast<std::uint64_t>(scale_out_bw_frac_));
  auto key = [&](Pattern pattern, int ranks, int stride) {
    return ShapeKey{fabric_state, static_cast<int>(pattern), ranks, stride};
  };
  const Pattern pattern = pattern_of(kind);
  if (auto it = measured_.find(key(pattern, group.ranks, group.stride)); it != measured_.end()) return it->second;

  // A miss: probe this shape and every expected one not known in this state, in one child process.
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
  std::uint64_t fabric_state = mix(1469598103934665603ULL, placement_key_);
  fabric_state = mix(fabric_state, std::bit_cast<std::uint64_t>(scale_out_bw_frac_));
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
    measured_[ShapeKey{fabric_state, static_cast<int>(shape.pattern), shape.ranks, shape.stride}] = values[0];
    flows_played_ += static_cast<long long>(values[1]);
  }
  ++probes_;
}

std::array<double, 2> FabricCommModel::play(const Shape& shape, const std::vector<int>& rank_gpus) const {
  const ClosPlan& plan = fabric_->graph().plan();
  const hardware::Layout& layout = plan.layout();
  const int G = static_cast<int>(rank_gpus.size());

  // Can flows of different groups meet? Only on a bundle that is on routes.
  bool all_groups = false;
  std::vector<char> degraded(at(G), 0), usable(at(G), 1);
  for (int r = 0; r < G; ++r) {
    const int gpu = rank_gpus[at(r)];
    const int leaf = plan.leaf_of(gpu);
    if (fabric_->leaf_bundle_in_routes(leaf) || fabric_->pod_bundle_in_routes(plan.pod_of_leaf(leaf)))
      all_groups = true;
    degraded[at(r)] = fabric_->bw_frac(gpu) < 1.0;
    usable[at(r)] = !fabric_->cut_off(gpu) && platform_->host_on(racks_->gpu_host(gpu));
  }

  const int n = shape.ranks, s = shape.stride;
  std::vector<sim::Platform::Flow> flows;
  std::vector<int> sender;             // per flow: the member (rank) that sends it
  std::vector<double> member_bytes(at(G), 0.0);
  auto add = [&](int from, int to, double bytes) {
    if (!usable[at(from)] || !usable[at(to)]) return;
    flows.push_back({racks_->gpu_host(rank_gpus[at(from)]), racks_->gpu_host(rank_gpus[at(to)]), bytes});
    sender.push_back(from);
    member_bytes[at(from)] += bytes;
  };
  if (shape.pattern == Pattern::PAIR) {
    bool first = true;
    for (int r = 0; r + s < G; ++r) {
      if (layout.domain_of(rank_gpus[at(r)]) == layout.domain_of(rank_gpus[at(r + s)])) continue;
      if (all_groups || first || degraded[at(r)] || degraded[at(r + s)]) add(r, r + s, PROBE_BYTES);
      first = false;
    }
  } else if (n >= 2 && G % n == 0) {
    const int groups = G / n;
    std::vector<std::vector<int>> buckets; // the group's members by NVLink domain, in rank order
    for (int q = 0; q < groups; ++q) {
      const int base = (q / s) * s * n + q % s;
      bool play_it = all_groups || q == 0;
      buckets.clear();
      int last_domain = -1;
      for (int i = 0; i < n; ++i) {
        const int r = base + i * s;
        if (r >= G) break;
        play_it = play_it || degraded[at(r)];
        const int d = layout.domain_of(rank_gpus[at(r)]);
        if (d != last_domain) buckets.emplace_back();
        buckets.back().push_back(r);
        last_domain = d;
      }
      const std::size_t D = buckets.size();
      if (!play_it || D < 2) continue;
      for (std::size_t d = 0; d < D; ++d)
        for (std::size_t j = 0; j < buckets[d].size(); ++j) {
          if (shape.pattern == Pattern::RING) {
            const auto& next = buckets[(d + 1) % D];
            add(buckets[d][j], next[j % next.size()], PROBE_BYTES);
          } else {
            for (std::size_t e = 0; e < D; ++e)
              if (e != d)
                add(buckets[d][j], buckets[e][j % buckets[e].size()],
                    static_cast<double>(buckets[e].size()) * PROBE_BYTES);
          }
        }
    }
  }
  if (flows.empty()) return {0.0, 0.0};
  const std::vector<double> rates = platform_->rates_isolated(flows, SETTLE_S, WINDOW_S);
  std::vector<double> member_s(at(G), 0.0); // time each member needs at these rates for all its bytes
  for (std::size_t f = 0; f < flows.size(); ++f)
    if (rates[f] > 0) member_s[at(sender[f])] = std::max(member_s[at(sender[f])], flows[f].bytes / rates[f]);
  double slowest = 0.0; // the least rate of any member: the collective waits for it
  for (int r = 0; r < G; ++r)
    if (member_s[at(r)] > 0) {
      const double rate = member_bytes[at(r)] / member_s[at(r)];
      slowest = slowest == 0.0 ? rate : std::min(slowest, rate);
    }
  return {slowest, static_cast<double>(flows.size())};
}

} // namespace dcsim::fabric
