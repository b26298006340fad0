#include "models/sched/placement_policy.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace dcsim::sched {

namespace {

struct Block {
  int id = 0;
  std::vector<int> domains; ///< free full-share domains, increasing index
};

/// Most free domains first, lower id on ties.
void most_free_first(std::vector<Block*>& blocks) {
  std::stable_sort(blocks.begin(), blocks.end(), [](const Block* a, const Block* b) {
    if (a->domains.size() != b->domains.size()) return a->domains.size() > b->domains.size();
    return a->id < b->id;
  });
}

/// The fewest free domains that still hold `need` (lower id on ties), or null.
template <class B> B* best_fit(std::vector<B>& blocks, int need) {
  B* best = nullptr;
  for (B& b : blocks)
    if (static_cast<int>(b.size()) >= need && (!best || b.size() < best->size())) best = &b;
  return best;
}

std::vector<int> pack_order(const PlacementTopology& topo, const std::vector<int>& free_full, int need) {
  std::map<int, Block> groups;           // by group id
  std::map<int, std::vector<int>> pods;  // pod -> its group ids (increasing)
  for (int d : free_full) {
    const int g = topo.group_of_domain.at(static_cast<std::size_t>(d));
    Block& b = groups[g];
    b.id = g;
    if (b.domains.empty()) pods[topo.pod_of_domain.at(static_cast<std::size_t>(d))].push_back(g);
    b.domains.push_back(d);
  }
  struct Pod {
    int id = 0;
    std::vector<Block*> groups;
    std::size_t free = 0;
    std::size_t size() const { return free; }
  };
  std::vector<Pod> pod_list;
  for (auto& [p, ids] : pods) {
    Pod pod{p, {}, 0};
    for (int g : ids) {
      pod.groups.push_back(&groups[g]);
      pod.free += groups[g].domains.size();
    }
    most_free_first(pod.groups);
    pod_list.push_back(std::move(pod));
  }
  // The general order: pods most-free first, each pod's groups most-free first.
  std::stable_sort(pod_list.begin(), pod_list.end(), [](const Pod& a, const Pod& b) {
    if (a.free != b.free) return a.free > b.free;
    return a.id < b.id;
  });
  std::vector<Block*> sequence;
  for (Pod& pod : pod_list)
    sequence.insert(sequence.end(), pod.groups.begin(), pod.groups.end());
  // A group that holds the job, else a pod that does, goes first.
  Block* group_fit = nullptr;
  for (auto& [g, b] : groups)
    if (static_cast<int>(b.domains.size()) >= need && (!group_fit || b.domains.size() < group_fit->domains.size()))
      group_fit = &b;
  std::vector<Block*> first;
  if (group_fit)
    first.push_back(group_fit);
  else if (Pod* pod = best_fit(pod_list, need))
    first = pod->groups;
  std::vector<Block*> ordered = first;
  for (Block* b : sequence)
    if (std::find(first.begin(), first.end(), b) == first.end()) ordered.push_back(b);
  std::vector<int> out;
  for (const Block* b : ordered)
    out.insert(out.end(), b->domains.begin(), b->domains.end());
  return out;
}

} // namespace

std::vector<int> placement_order(PlacementPolicy policy, const PlacementTopology& topology,
                                 const std::vector<int>& free_full, int need, int domains, sim::Rng* rng) {
  std::vector<int> out;
  if (policy == PlacementPolicy::FIRST_FIT) {
    out.resize(static_cast<std::size_t>(domains));
    for (int d = 0; d < domains; ++d)
      out[static_cast<std::size_t>(d)] = d;
    return out;
  }
  if (policy == PlacementPolicy::PACK) {
    out = pack_order(topology, free_full, need);
  } else {
    if (!rng) throw std::logic_error("placement_order: spread needs a random stream");
    out = free_full;
    for (std::size_t i = out.size(); i > 1; --i) // Fisher–Yates
      std::swap(out[i - 1], out[static_cast<std::size_t>(rng->below(i))]);
  }
  std::vector<char> listed(static_cast<std::size_t>(domains), 0);
  for (int d : out)
    listed[static_cast<std::size_t>(d)] = 1;
  for (int d = 0; d < domains; ++d)
    if (!listed[static_cast<std::size_t>(d)]) out.push_back(d);
  return out;
}

} // namespace dcsim::sched
