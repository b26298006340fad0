// Which parts of the fabric are down, and what that leaves each GPU. Engine-free: FabricPlatform mirrors
// it onto SimGrid links, and tests and the job model can use it alone.
//
// Elements that fail (the failure scopes nic_port, link, leaf, spine, plus core for 3 tiers), each
// identified by (kind, plane, index within that plane):
//   NIC_PORT  index = gpu * p + port                       (p = ports per GPU per plane)
//   LINK      index in [0, N*p): the GPU-leaf cable of that port (same effect as the port);
//             then N*p + i for switch-switch link i: leaf uplinks (leaf * u + j), then 3 tiers: spine
//             uplinks (ClosPlan::spine_uplink_offset(spine) + t)
//   LEAF, SPINE, CORE  index = switch index in its tier
// unit_count(kind) counts elements over all planes; element(kind, unit) maps a unit number (what a
// failure process draws uniformly) to (plane, index): plane = unit / per-plane count.
// fail()/restore() count: an element hit by two overlapping failures is up again after two restores.
//
// Remaining bandwidth of GPU g (bw_frac), relative to the healthy fabric, for traffic leaving its leaf:
//     bw_frac(g) = 1/(P p) * sum over planes q of  alive_ports(g, q) * path_frac(q, leaf(g))
//     path_frac  = 0 if the leaf is down; else 1 with one leaf per plane (1 tier, or all GPUs on one
//                  leaf); else  live_up(leaf)/u  for 2 tiers, and  min(live_up(leaf)/u,
//                  live_up(pod)/(u * leaves of pod))  for 3 tiers with several pods,
// where live_up counts uplinks that are up and end on a switch that is up (a pod's uplinks are its
// spines' uplinks to live cores; a dead spine's uplinks count as dead). This is the share a GPU keeps
// when every GPU of its leaf sends across leaves at once, NICs spraying over the surviving planes
// (CONTEXT.md §3: "a failed link or switch in one plane costs that plane's share of bandwidth").
// cut_off(g) is bw_frac(g) == 0: no plane takes g beyond its leaf (1 plane + leaf down; every port
// down; every uplink of its leaf down). A GPU whose leaf kept no uplink still reaches GPUs on that leaf,
// but a job spanning leaves stalls, so it counts as cut off.
#pragma once

#include "models/fabric/clos_plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dcsim::fabric {

enum class ElementKind { NIC_PORT, LINK, LEAF, SPINE, CORE };
std::string_view element_kind_name(ElementKind kind);

struct Element {
  ElementKind kind = ElementKind::LEAF;
  int plane = 0;
  int index = 0; ///< within the plane, see above
};

/// What a change of one element touches: GPUs whose bw_frac may change, and the (plane-aggregated)
/// leaves and pods whose capacities changed.
struct Affected {
  std::vector<int> gpus;
  std::vector<int> leaves;
  std::vector<int> pods;
};

class FabricState {
public:
  explicit FabricState(const ClosPlan& plan); ///< the plan must be ok() and outlive the state

  const ClosPlan& plan() const { return *plan_; }

  int per_plane_count(ElementKind kind) const;
  std::int64_t unit_count(ElementKind kind) const {
    return static_cast<std::int64_t>(per_plane_count(kind)) * plan_->planes();
  }
  Element element(ElementKind kind, std::int64_t unit) const;
  /// "plane3/leaf0042", "plane3/leaf0042/up017", "rack0001/tray03/gpu2/plane3/port0", ...
  std::string name(const Element& e) const;
  /// Throws std::out_of_range for an element that does not exist.
  void check(const Element& e) const;

  /// Returns true when the element went down (false: it was already down, now down twice).
  bool fail(const Element& e);
  /// Returns true when the element came back up (false: still down from another failure).
  bool restore(const Element& e);
  bool is_down(const Element& e) const;
  /// Everything whose bandwidth or capacity may change when `e` changes state.
  /// With `with_gpus` false, `gpus` lists only the GPU of a NIC port or GPU cable (switch-level elements
  /// can touch every GPU: use `leaves` and leaf_bw_frac then).
  Affected affected(const Element& e, bool with_gpus = true) const;
  /// Remaining share of a GPU on `leaf` whose NIC ports are all up: (1/P) Σ_q path_frac(q, leaf).
  double leaf_bw_frac(int leaf) const;
  /// Whether every NIC port of the GPU is up (its bandwidth is then its leaf's).
  bool ports_complete(int gpu) const;

  double bw_frac(int gpu) const;
  bool cut_off(int gpu) const { return bw_frac(gpu) <= 0.0; }

  // Capacities over all planes, in ports (x port_gbps for Gb/s); FabricPlatform's aggregated links.
  int gpu_ports(int gpu) const { return gpu_ports_[static_cast<std::size_t>(gpu)]; }  ///< live ports on live leaves
  std::int64_t leaf_access(int leaf) const { return leaf_access_[static_cast<std::size_t>(leaf)]; } ///< sum of gpu_ports
  int leaf_up(int leaf) const { return leaf_up_[static_cast<std::size_t>(leaf)]; } ///< live uplinks of live leaves
  std::int64_t pod_access(int pod) const { return pod_access_[static_cast<std::size_t>(pod)]; }
  std::int64_t pod_up(int pod) const { return pod_up_[static_cast<std::size_t>(pod)]; } ///< live spine uplinks

  // Per-plane state, for connectivity (ClosGraph::components).
  bool switch_up(int plane, ElementKind kind, int index) const;
  int port_up_count(int gpu, int plane) const; ///< live ports of a GPU in a plane (its leaf ignored)
  bool leaf_uplink_up(int plane, int leaf, int j) const;
  bool spine_uplink_up(int plane, int spine, int t) const;

private:
  const ClosPlan* plan_;
  int P_, p_, N_, L_, S_, C_, u_;
  // Failure counters (0 = up).
  std::vector<std::uint8_t> port_down_;  ///< (plane * N + gpu) * p + port
  std::vector<std::uint8_t> slink_down_; ///< plane * switch_links + i
  std::vector<std::uint8_t> leaf_down_, spine_down_, core_down_; ///< plane * count + index
  // Derived, per plane.
  std::vector<std::uint8_t> ports_alive_;  ///< plane * N + gpu
  std::vector<std::int32_t> leaf_up_alive_;  ///< plane * L + leaf: live uplinks to live spines
  std::vector<std::int32_t> spine_up_alive_; ///< plane * S + spine: live uplinks to live cores
  std::vector<std::int64_t> pod_up_alive_;   ///< plane * pods + pod: over live spines of the pod
  // Derived, over planes.
  std::vector<std::int32_t> gpu_ports_;
  std::vector<std::int64_t> leaf_access_;
  std::vector<std::int32_t> leaf_up_;
  std::vector<std::int64_t> pod_access_;
  std::vector<std::int64_t> pod_up_;

  std::uint8_t& counter(const Element& e);
  std::uint8_t counter_value(const Element& e) const;
  void refresh(const Element& e);
  void refresh_gpu(int gpu);
  void refresh_leaf_access(int leaf);
  void refresh_leaf_up(int plane, int leaf);
  void refresh_spine_up(int plane, int spine);
  void refresh_pod(int plane, int pod);
  void refresh_pod_totals(int pod);
  double path_frac(int plane, int leaf) const;
};

} // namespace dcsim::fabric
