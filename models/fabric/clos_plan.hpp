// The structure of a multi-plane, rail-optimised Clos, computed arithmetically from the spec and the
// hardware layout: which leaf each GPU port lands on, how many switches each tier has, and where every
// uplink goes. ClosGraph (the Boost.Graph view), FabricState (failures) and FabricPlatform (SimGrid)
// are all built from this one plan, so they cannot disagree.
//
// Notation: N GPUs in D NVLink domains of R GPUs (an NVL72 rack: R = 72; an HGX server: R = 8); P planes;
// p = nic_ports_per_gpu / P ports per GPU per plane; k = switch_radix; d / u = leaf down / up ports
// (spec.hpp). Every plane is identical: plane q has its own copy of every switch and link below.
//
// Rails. The GPU in slot r of a domain is on rail r. Domains are taken in order in groups of G = floor(d/p)
// domains (the last group may hold fewer, n <= G). In a group of n domains, a leaf carries m consecutive
// rails of every domain of the group, m = min(R, floor(d / (n*p))): m = 1 in a full group (one leaf per
// rail, the classic rail-optimised layout), and a short last group packs several rails per leaf instead of
// leaving R leaves nearly empty. So GPU i of every domain of a group is on one leaf, and rail-aligned
// traffic (GPU i to GPU i of another domain, the usual data-parallel pattern) crosses a single switch.
//
//   one plane, two tiers, NVL72 racks, k = 512 (d = u = 256, G = 256 racks per group, m = 1):
//
//     spine0000   spine0001   ...   spine0255        S spines; uplink j of every leaf goes to spine
//       |    \    /   |      ...      |             j mod S, so each leaf has u/S links to each spine
//     leaf0000 leaf0001 ... leaf0071 | leaf0072 ... leaf0143 | ...   (diameter: 3 switches)
//      rail 0   rail 1      rail 71  |  rail 0      rail 71  |
//      GPU 0 of racks 0..255         |  GPU 0 of racks 256..511   (group 1)
//      (group 0: 256 racks x 1 port)
//   1,820 racks: 7 full groups x 72 leaves + a last group of 28 racks with m = floor(256/28) = 9 rails
//   per leaf (8 leaves) = 512 leaves = k: 131,040 GPUs fit two tiers of radix 512.
//
//   Upper tiers are sized as the fewest switches that keep every lower switch's links spread evenly
//   (balanced ECMP, so the tiers above the leaf are non-blocking):
//   two tiers: S = the smallest divisor of u that is >= ceil(L*u / k) (each spine then has L*u/S <= k
//     links): full size (L = k) gives S = u = k/2.
//   three tiers: leaves are cut into pods of Lp = floor(k/2) consecutive leaves; pod c has u spines,
//     leaf uplink j goes to spine j of its pod; spine j of pod c has one uplink per leaf of its pod
//     (non-blocking), to core group j of C cores, uplink t to core t mod C of the group, where C is the
//     smallest divisor of Lp with C >= ceil(L/k) whose busiest core has <= k links. Cores = u*C per
//     plane. Full size (r = 1): k^2/2 leaves, k^2/2 spines, k^2/4 cores, k^3/4 GPUs.
//
// Limits (an impossible design is reported, never silently built): leaves per plane <= 1 (1 tier),
// k (2 tiers: each spine port reaches one leaf), k*Lp (3 tiers: k pods).
#pragma once

#include "models/fabric/spec.hpp"
#include "models/hardware/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dcsim::fabric {

/// Domains cabled together: leaf `first_leaf + i` carries rails [i*m, min(R, (i+1)*m)) of each domain.
struct RailGroup {
  int first_domain = 0;
  int domains = 0;
  int rails_per_leaf = 1; ///< m
  int first_leaf = 0;
  int leaves = 0;
};

/// Why a design cannot be built: `key` is the /fabric key to change; the message says what and how.
struct DesignProblem {
  std::string key;
  std::string message;
};

class ClosPlan {
public:
  ClosPlan(const FabricSpec& spec, const hardware::Layout& layout);

  /// False when the design is impossible; nothing else may then be used.
  bool ok() const { return problems_.empty(); }
  const std::vector<DesignProblem>& problems() const { return problems_; }

  const FabricSpec& spec() const { return spec_; }
  const hardware::Layout& layout() const { return layout_; }

  int gpus() const { return gpus_; }
  int domains() const { return domains_; }
  int rails() const { return rails_; }
  int planes() const { return spec_.planes; }
  int ports_per_plane() const { return p_; } ///< p: ports of one GPU in one plane
  int tiers() const { return spec_.tiers; }
  int radix() const { return spec_.switch_radix; }
  int leaf_down_ports() const { return d_; }
  int leaf_up_ports() const { return u_; }
  /// d/u as built (equals oversubscription when k*r/(1+r) is a whole number); 0 for one tier.
  double effective_oversubscription() const { return u_ > 0 ? static_cast<double>(d_) / u_ : 0.0; }

  int leaves() const { return leaves_; } ///< per plane
  int spines() const { return spines_; } ///< tier-2 switches per plane
  int cores() const { return cores_; }   ///< tier-3 switches per plane
  int pods() const { return pods_; }     ///< 3 tiers: pods; otherwise 1
  int leaves_per_pod() const { return leaves_per_pod_; }
  int cores_per_group() const { return cores_per_group_; }
  int leaves_max() const { return max_leaves_; }
  std::int64_t max_gpus() const { return max_gpus_; } ///< what this radix, tier count and p can attach
  /// max_gpus for another radix/tier count (same p and oversubscription), for design messages.
  static std::int64_t capacity(int radix, int tiers, double oversubscription, int ports_per_plane);
  static int down_ports(int radix, int tiers, double oversubscription);

  const std::vector<RailGroup>& groups() const { return groups_; }
  const RailGroup& group_of_leaf(int leaf) const;

  int leaf_of(int gpu) const;
  int pod_of_leaf(int leaf) const { return spec_.tiers == 3 ? leaf / leaves_per_pod_ : 0; }
  int pod_leaves(int pod) const; ///< leaves in a pod (the last one may be short)
  int pod_first_leaf(int pod) const { return pod * leaves_per_pod_; }
  int leaf_gpu_count(int leaf) const;
  /// Appends the GPUs attached to a leaf (in increasing order).
  void leaf_gpus(int leaf, std::vector<int>& out) const;

  /// Tier-2 switch reached by uplink j (0..u-1) of a leaf.
  int leaf_uplink_target(int leaf, int j) const;
  /// 3 tiers: the pod of a spine, its uplink count (one per leaf of its pod) and their targets.
  int pod_of_spine(int spine) const { return spec_.tiers == 3 ? spine / u_ : 0; }
  int spine_uplinks(int spine) const;
  int spine_uplink_target(int spine, int t) const;
  /// Index of a spine's first uplink among the plane's spine uplinks (3 tiers).
  int spine_uplink_offset(int spine) const;

  /// Per plane: cables from GPUs (N*p), leaf uplinks (L*u), spine uplinks (3 tiers: L*u), and their sum
  /// of switch-to-switch links.
  int gpu_links_per_plane() const { return gpus_ * p_; }
  int leaf_uplinks_per_plane() const { return leaves_ * u_; }
  int spine_uplinks_per_plane() const { return spec_.tiers == 3 ? leaves_ * u_ : 0; }
  int switch_links_per_plane() const { return leaf_uplinks_per_plane() + spine_uplinks_per_plane(); }

private:
  FabricSpec spec_;
  hardware::Layout layout_;
  std::vector<DesignProblem> problems_;
  int gpus_ = 0, domains_ = 0, rails_ = 0, p_ = 1, d_ = 0, u_ = 0;
  int group_domains_ = 0; ///< G
  int leaves_ = 0, spines_ = 0, cores_ = 0, pods_ = 1, leaves_per_pod_ = 0, cores_per_group_ = 0;
  int max_leaves_ = 0;
  std::int64_t max_gpus_ = 0;
  std::vector<RailGroup> groups_;
  std::vector<int> group_of_leaf_;
};

} // namespace dcsim::fabric
