// Where each workload's GPUs are: the holder of every GPU, as the allocator last reported it, and per
// workload the number of its GPUs in each group of every registered grouping (racks, fabric leaves).
//
// One index per replica, fed by the allocator's change hook; everything that asks "which workload's GPUs
// are on this rack / leaf" reads it instead of keeping its own count:
//   - the facility: per-rack GPUs of a job (its power draw, the throttled racks that make it straggle);
//   - the fabric tracker: per-leaf GPUs of a job (its leaf share, its placement class), through the
//     grouping's count hook;
//   - the replica: who holds a struck GPU.
// Invariant: for every grouping k and workload j, Σ_group count(k, j, group) = GPUs held by j.
// Engine-free; a grouping's group of each GPU is computed once, when it is registered.
#pragma once

#include "models/hardware/layout.hpp"

#include <functional>
#include <vector>

namespace dcsim::hardware {

class PlacementIndex {
public:
  /// The count of `job`'s GPUs in `group` went from `before` to `after` (|after - before| = 1).
  using CountHook = std::function<void(int job, int group, int before, int after)>;
  /// GPU `gpu` went from holder `from` to holder `to` (-1: none); counts are already updated.
  using OwnerHook = std::function<void(int gpu, int from, int to)>;

  PlacementIndex(int gpus, int jobs);

  /// Registers a grouping of the GPUs into `groups` groups (`group_of(gpu)` in [0, groups)) and returns
  /// its id. Registered before any GPU has a holder.
  int add_grouping(int groups, const std::function<int(int gpu)>& group_of, CountHook hook = {});
  /// Hooks run in the order they were added, after the counts changed.
  void add_owner_hook(OwnerHook hook) { owner_hooks_.push_back(std::move(hook)); }

  /// GPU `gpu` is now held by `owner` (-1: by none). Nothing happens when that is already so.
  void set_owner(int gpu, int owner);

  int owner(int gpu) const { return owner_[static_cast<std::size_t>(gpu)]; }
  /// The workloads holding any GPU of `gpus`, each once, in increasing order (a failure's owners).
  std::vector<int> owners_in(GpuRange gpus) const;
  int gpus() const { return static_cast<int>(owner_.size()); }
  int jobs() const { return jobs_; }
  int groups(int grouping) const { return groupings_[static_cast<std::size_t>(grouping)].groups; }
  int group_of(int grouping, int gpu) const {
    return groupings_[static_cast<std::size_t>(grouping)].group_of[static_cast<std::size_t>(gpu)];
  }
  /// GPUs of `job` in `group` of grouping `grouping`.
  int count(int grouping, int job, int group) const {
    return counts(grouping, job)[static_cast<std::size_t>(group)];
  }
  /// GPUs of `job` in each group of `grouping`.
  const std::vector<int>& counts(int grouping, int job) const {
    return groupings_[static_cast<std::size_t>(grouping)].counts[static_cast<std::size_t>(job)];
  }

private:
  struct Grouping {
    int groups = 0;
    std::vector<int> group_of;            ///< per GPU
    std::vector<std::vector<int>> counts; ///< [job][group]
    CountHook hook;
  };
  int jobs_;
  std::vector<int> owner_;
  std::vector<Grouping> groupings_;
  std::vector<OwnerHook> owner_hooks_;

  void count(Grouping& k, int job, int gpu, int delta);
};

} // namespace dcsim::hardware
