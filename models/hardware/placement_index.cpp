#include "models/hardware/placement_index.hpp"

#include <algorithm>
#include <stdexcept>

namespace dcsim::hardware {

PlacementIndex::PlacementIndex(int gpus, int jobs)
    : jobs_(jobs), owner_(static_cast<std::size_t>(gpus), -1) {}

int PlacementIndex::add_grouping(int groups, const std::function<int(int gpu)>& group_of, CountHook hook) {
  for (int o : owner_)
    if (o >= 0) throw std::logic_error("PlacementIndex: a grouping registered after GPUs were placed");
  Grouping k;
  k.groups = groups;
  k.group_of.resize(owner_.size());
  for (std::size_t g = 0; g < owner_.size(); ++g) {
    const int group = group_of(static_cast<int>(g));
    if (group < 0 || group >= groups) throw std::logic_error("PlacementIndex: a GPU's group out of range");
    k.group_of[g] = group;
  }
  k.counts.assign(static_cast<std::size_t>(jobs_), std::vector<int>(static_cast<std::size_t>(groups), 0));
  k.hook = std::move(hook);
  groupings_.push_back(std::move(k));
  return static_cast<int>(groupings_.size()) - 1;
}

void PlacementIndex::count(Grouping& k, int job, int gpu, int delta) {
  const int group = k.group_of[static_cast<std::size_t>(gpu)];
  int& n = k.counts[static_cast<std::size_t>(job)][static_cast<std::size_t>(group)];
  const int before = n;
  n += delta;
  if (k.hook) k.hook(job, group, before, n);
}

void PlacementIndex::set_owner(int gpu, int owner) {
  int& seen = owner_[static_cast<std::size_t>(gpu)];
  if (owner == seen) return;
  const int from = seen;
  for (auto& k : groupings_) {
    if (from >= 0) count(k, from, gpu, -1);
    if (owner >= 0) count(k, owner, gpu, +1);
  }
  seen = owner;
  for (const auto& hook : owner_hooks_)
    hook(gpu, from, owner);
}

std::vector<int> PlacementIndex::owners_in(GpuRange gpus) const {
  std::vector<int> owners;
  for (int g = gpus.first; g < gpus.end(); ++g)
    if (const int o = owner(g); o >= 0) owners.push_back(o);
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

} // namespace dcsim::hardware
