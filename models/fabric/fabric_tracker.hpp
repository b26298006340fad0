// What the fabric's state means for jobs, kept current as elements fail and GPUs change owner.
//
// Bandwidth is tracked per leaf (a GPU whose NIC ports are all up has its leaf's share, b_l =
// FabricState::leaf_bw_frac) plus the few GPUs with a NIC port (or its cable) down, whose share is
// their own (FabricState::bw_frac): a spine fault touches every GPU, but only every leaf, so a change
// costs O(leaves it touches), not O(GPUs). A GPU is cut off when its share is 0; the tracker reports
// each GPU that becomes cut off or reachable again through a hook (the replica takes it down in
// GpuHealth until it is back).
//
// For a job j with G_jl GPUs on leaf l (the replica's placement index counts them: the tracker registers
// the leaf grouping and keeps K_j current from its count hook):
//   leaf share   B_j^leaf = min{ b_l : G_jl > 0 }
//   share        B_j      = min(B_j^leaf, min{ bw_frac(g) : g owned by j, a port of g down, g not cut off })
//   placement    K_j      = Σ_l FabricCommModel::leaf_count_key(G_jl)   (FabricCommModel's state class)
// Degraded GPUs (a gauge): GPUs reachable with less than their full share.
// Engine-free: FabricState, ClosPlan and the placement index only.
#pragma once

#include "models/fabric/fabric_state.hpp"
#include "models/hardware/placement_index.hpp"

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

namespace dcsim::fabric {

class FabricTracker {
public:
  /// `cut_changed(gpu, cut)`: the GPU lost its last path (true) or has one again (false).
  using CutHook = std::function<void(int gpu, bool cut)>;

  /// Registers the leaf grouping in `placement` (before any GPU is placed there).
  FabricTracker(const FabricState& state, hardware::PlacementIndex& placement, CutHook cut_changed);
  /// Element `e` just failed or came back (FabricState already updated): refreshes the shares of the
  /// leaves and GPUs it touches, reporting GPUs cut off or reachable again.
  void element_changed(const Element& e);

  /// B_j: the least share left to job's GPUs that are not cut off.
  double job_bw(int job) const;
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
  const hardware::PlacementIndex* placement_;
  int leaves_ = -1;                        ///< the leaf grouping's id: G_jl
  std::vector<std::uint64_t> key_;         ///< K_j
  std::vector<int> leaf_gpus_;             ///< scratch
  void refresh_cut(int gpu);
};

} // namespace dcsim::fabric
