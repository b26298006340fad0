// Placement policies: in which order a job takes free NVLink domains (operations.placement).
//
// Topology. Domains are cabled in rail groups (fabric/clos_plan.hpp: the G domains of a group share
// their leaves, one leaf per rail), and with three tiers rail groups sit in pods (the pod of a group's
// first leaf). A job inside one group crosses only leaves; inside one pod, leaves and spines; across
// pods, the cores too. Without a fabric every domain is in group 0, pod 0.
// Policies, for a job needing n domains, over the free domains able to host a full share:
//   FIRST_FIT  lowest domain index first (the behaviour before policies; on an empty factory it fills
//              groups and pods in order, so there it packs too).
//   PACK       topology-aware best fit: the group with the fewest free domains that still holds n; else
//              the pod with the fewest free domains that holds n, its groups taken fullest-free first
//              (most free domains first, so the job touches the fewest groups); else pods and their groups
//              most-free first. Ties go to the lower index. Leaves the big free blocks to big jobs.
//   SPREAD     uniformly random free domains (Fisher–Yates over the stream "placement/spread"): the
//              tenant spread of a scheduler that ignores topology.
// The order returned lists every domain once: the chosen full-share domains first, then the others in
// index order (a job's last, partial share may fit one that cannot host a full share).
#pragma once

#include "models/ops/spec.hpp"
#include "sim/rng.hpp"

#include <vector>

namespace dcsim::sched {

using PlacementPolicy = ops::Placement;

/// Per domain: its rail group and pod (both 0 without a fabric).
struct PlacementTopology {
  std::vector<int> group_of_domain;
  std::vector<int> pod_of_domain;
};

/// The domains in the order a job of `need` domains takes them. `free_full` lists the free domains able to
/// host a full share, in increasing index; `domains` is the domain count. SPREAD draws from `rng`.
std::vector<int> placement_order(PlacementPolicy policy, const PlacementTopology& topology,
                                 const std::vector<int>& free_full, int need, int domains, sim::Rng* rng);

} // namespace dcsim::sched
