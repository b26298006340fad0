// What the fabric's state means for jobs, kept current as elements fail and GPUs change owner.
//
// Bandwidth is tracked per leaf (a GPU whose NIC ports are all up has its leaf's share, b_l =
// FabricState::leaf_bw_frac) plus the few GPUs with a NIC port (or its cable) down, whose share is
// their own (FabricState::bw_frac): a spine fault touches every GPU, but only every leaf, so a change
// costs O(leaves it touches), not O(GPUs). A GPU is cut off when its share is 0; the tracker reports
// each GPU that becomes cut off or reachable again through a hook (the replica takes it down in
// GpuHealth until it is back).
//
// For a job j with G_jl GPUs on leaf l (kept current from owner changes):
//   leaf share   B_j^leaf = min{ b_l : G_jl > 0 }
//   share        B_j      = min(B_j^leaf, min{ bw_frac(g) : g owned by j, a port of g down, g not cut off })
//   placement    K_j      = Σ_l FabricCommModel::leaf_count_key(G_jl)   (FabricCommModel's state class)
// Degraded GPUs (a gauge): GPUs reachable with less than their full share.
// Engine-free: FabricState and ClosPlan only.
#pragma once

#include "models/fabric/fabric_state.hpp"

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

namespace dcsim::fabric {

class FabricTracker {
public:
  /// `cut_changed(gpu, cut)`: the GPU lost its last path (true) or has one again (false).
  using CutHook = std::function<void(int gpu, bool cut)>;

  FabricTracker(const FabricState& state, int jobs, CutHook cut_changed);

  /// GPU `gpu` is now held by job `owner` (-1: by none).
  void set_owner(int gpu, int owner);
  /// Element `e` just failed or came back (FabricState already updated): refreshes the shares of the
  /// leaves and GPUs it touches, reporting GPUs cut off or reachable again.
  void element_changed(const Element& e);

  /// B_j: the least share left to job's GPUs that are not cut off; `owner(g)` is the GPU's holder.
  double job_bw(int job, const std::function<int(int)>& owner) const;
  /// B_j^leaf: the least share its leaves leave.
  double job_leaf_bw(int job) const;
  /// K_j: the placement class of the job's GPUs.
  std::uint64_t placement_key(int job) const { return key_[static_cast<std::size_t>(job)]; }
  bool cut_off(int gpu) const { return cut_off_[static_cast<std::size_t>(gpu)] != 0; }
  /// GPUs reachable with less than their full scale-out share.
  int degraded_bw_gpus() const;

private:
  const FabricState* state_;
  const ClosPlan* plan_;
  CutHook cut_changed_;
  std::vector<double> leaf_bw_;            ///< b_l
  std::set<int> port_degraded_;            ///< GPUs with a NIC port (or its cable) down
  std::vector<char> cut_off_;              ///< per GPU
  std::vector<std::vector<int>> job_leaf_; ///< G_jl
  std::vector<std::uint64_t> key_;         ///< K_j
  std::vector<int> owner_;                 ///< per GPU, as last set
  std::vector<int> leaf_gpus_;             ///< scratch

  void count(int job, int leaf, int delta);
  void refresh_cut(int gpu);
};

} // namespace dcsim::fabric
