#include "models/workload/fabric_sharing.hpp"

#include <bit>

namespace dcsim::workload {

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) { // FNV-1a over 64-bit words
  h ^= v;
  return h * 1099511628211ULL;
}
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

fabric::FlowPattern pattern_of(GroupAxis axis) {
  switch (axis) {
  case GroupAxis::EP: return fabric::FlowPattern::ALL_TO_ALL;
  case GroupAxis::PP: return fabric::FlowPattern::PAIR;
  default: return fabric::FlowPattern::RING;
  }
}
} // namespace

FabricSharing::FabricSharing(const fabric::FabricPlatform& fabric, fabric::PhaseOverlap overlap, std::uint64_t seed,
                             fabric::SharedRouting routing, bool coupling)
    : net_(fabric, overlap, seed, routing), util_(fabric, routing.nic_efficiency_frac), coupling_(coupling) {}

void FabricSharing::place(int job, JobPace& pace, const Pace& state, const std::function<std::vector<int>()>& gpus,
                          bool couple) {
  couple = couple && coupling_;
  std::uint64_t key = 1469598103934665603ULL;
  for (std::uint64_t v : {state.placement, bits(state.bw), bits(state.leaf_bw), bits(state.clock), bits(state.nvlink)})
    key = mix(key, v);
  key = mix(key, couple ? 1 : 0);
  if (auto it = keys_.find(job); it != keys_.end() && it->second == key) return;
  keys_[job] = key;
  fabric::JobTraffic traffic;
  traffic.key = key;
  traffic.rank_gpus = gpus();
  std::vector<GroupAxis> axes;
  for (const JobPace::FabricPhase& p : pace.fabric_traffic(state, traffic.local_s)) {
    traffic.phases.push_back({pattern_of(p.axis), p.group.ranks, p.group.stride, p.alone_s});
    axes.push_back(p.axis);
  }
  axes_[job] = std::move(axes);
  util_.set_job(job, traffic);
  if (couple)
    net_.set_job(job, std::move(traffic));
  else
    net_.remove_job(job);
}

void FabricSharing::remove(int job) {
  if (keys_.erase(job) == 0) return;
  axes_.erase(job);
  net_.remove_job(job);
  util_.remove_job(job);
}

void FabricSharing::resolve() {
  net_.resolve();
  for (const auto& [job, axes] : axes_)
    util_.set_factors(job, net_.factors(job));
}

std::array<double, 6> FabricSharing::factors(int job) const {
  std::array<double, 6> out{1, 1, 1, 1, 1, 1};
  auto it = axes_.find(job);
  if (it == axes_.end()) return out;
  const std::vector<double>& f = net_.factors(job);
  for (std::size_t k = 0; k < it->second.size() && k < f.size(); ++k)
    out[static_cast<std::size_t>(it->second[k])] = f[k];
  return out;
}

} // namespace dcsim::workload
