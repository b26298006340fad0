#include "models/fabric/fabric_tracker.hpp"

#include "models/fabric/fabric_comm_model.hpp"

#include <algorithm>

namespace dcsim::fabric {

FabricTracker::FabricTracker(const FabricState& state, hardware::PlacementIndex& placement, CutHook cut_changed)
    : state_(&state), plan_(&state.plan()), cut_changed_(std::move(cut_changed)),
      leaf_bw_(static_cast<std::size_t>(plan_->leaves()), 1.0),
      cut_off_(static_cast<std::size_t>(plan_->gpus()), 0), placement_(&placement),
      key_(static_cast<std::size_t>(placement.jobs()), 0) {
  leaves_ = placement.add_grouping(
      plan_->leaves(), [this](int g) { return plan_->leaf_of(g); },
      [this](int job, int, int before, int after) {
        std::uint64_t& key = key_[static_cast<std::size_t>(job)];
        key -= FabricCommModel::leaf_count_key(before);
        key += FabricCommModel::leaf_count_key(after);
      });
}

void FabricTracker::refresh_cut(int gpu) {
  const bool cut = state_->cut_off(gpu);
  char& was = cut_off_[static_cast<std::size_t>(gpu)];
  if (cut == (was != 0)) return;
  was = cut ? 1 : 0;
  if (cut_changed_) cut_changed_(gpu, cut);
}

void FabricTracker::element_changed(const Element& e) {
  const Affected affected = state_->affected(e, /*with_gpus=*/false);
  for (int l : affected.leaves) {
    double& share = leaf_bw_[static_cast<std::size_t>(l)];
    const double before = share;
    share = state_->leaf_bw_frac(l);
    if ((before > 0) != (share > 0)) { // the whole leaf lost or regained every path
      leaf_gpus_.clear();
      plan_->leaf_gpus(l, leaf_gpus_);
      for (int g : leaf_gpus_)
        refresh_cut(g);
    }
  }
  for (int g : affected.gpus) { // a NIC port or its cable
    if (state_->ports_complete(g))
      port_degraded_.erase(g);
    else
      port_degraded_.insert(g);
    refresh_cut(g);
  }
}

double FabricTracker::job_leaf_bw(int job) const {
  double bw = 1.0;
  const auto& per_leaf = placement_->counts(leaves_, job);
  for (std::size_t l = 0; l < per_leaf.size(); ++l)
    if (per_leaf[l] > 0) bw = std::min(bw, leaf_bw_[l]);
  return bw;
}

double FabricTracker::job_bw(int job) const {
  double bw = job_leaf_bw(job);
  for (int g : port_degraded_)
    if (placement_->owner(g) == job && !cut_off(g)) bw = std::min(bw, state_->bw_frac(g));
  return bw;
}

int FabricTracker::degraded_bw_gpus() const {
  int degraded = 0;
  for (std::size_t l = 0; l < leaf_bw_.size(); ++l)
    if (leaf_bw_[l] > 0 && leaf_bw_[l] < 1) degraded += plan_->leaf_gpu_count(static_cast<int>(l));
  for (int g : port_degraded_)
    if (!cut_off(g) && leaf_bw_[static_cast<std::size_t>(plan_->leaf_of(g))] == 1) ++degraded;
  return degraded;
}

} // namespace dcsim::fabric
