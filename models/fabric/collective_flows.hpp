// The fabric flows of one group shape of a job's collectives, as FabricCommModel plays them.
//
// Shared by the isolated probe (fabric_comm_model.hpp: SimGrid's rates) and by the shared fabric
// (shared_fabric.hpp: the engine-free max-min over the same links). The shapes and weights are those of
// fabric_comm_model.hpp (one bandwidth-equivalent flow per member and peer; Q = PROBE_BYTES; c = members
// in the sender's domain, D = the group's domains):
//   RING       member j of domain d sends Q to member j mod c' of domain d + 1 (mod D); w = (D−1)/(D·c)
//   ALL_TO_ALL member j of domain d sends c'·Q to member j mod c' of every other domain; w = 1/n
//   PAIR       rank r sends Q to rank r + stride (pipeline boundaries crossing domains); w = 1
// β (seconds per byte of S) = max over members of (slowest own flow's bytes / rate)·w / Q.
// With `all_groups` false, groups that run alone on their members' access links are reduced to one per
// distinct split over domains (and every group with a degraded member), as the isolated probe does;
// the shared fabric asks for every group (`all_groups` true): the groups of different jobs meet.
#pragma once

#include "models/fabric/fabric_platform.hpp"

#include <vector>

namespace dcsim::fabric {

/// Bytes of each probe flow: none can end while the rates are read (milliseconds after the start).
inline constexpr double PROBE_BYTES = 1e12;

enum class FlowPattern { RING, ALL_TO_ALL, PAIR };

struct CollectiveFlows {
  std::vector<sim::Platform::Flow> flows; ///< host index = GPU index
  std::vector<int> sender;                ///< per flow: the member (rank) sending it
  std::vector<double> weight;             ///< per member: w above
};

/// The flows of groups of `ranks` members at `stride` over the job's GPUs in rank order. Members cut
/// off from the fabric send nothing. `all_groups`: every group, else the reduction above (which is
/// exact only while no bundle under the job is on routes).
CollectiveFlows collective_flows(const FabricPlatform& fabric, FlowPattern pattern, int ranks, int stride,
                                 const std::vector<int>& rank_gpus, bool all_groups);

/// The rate each flow gets when all start at once on the fabric's links at their current capacities:
/// the weighted max-min of max_min.hpp (weights 1) over the routes FabricPlatform::route gives, which is
/// what SimGrid's CM02 model gives the same flows (Platform::rates_isolated; tests/unit/fabric compare
/// the two), without an engine, a clock or a child process. A flow over a link that is off gets 0.
std::vector<double> fabric_rates(const FabricPlatform& fabric, const std::vector<sim::Platform::Flow>& flows);

/// β of the flows at `rates` (bytes/s, in order; a flow at 0 is blocked and left out); 0 when none runs.
double collective_beta(const CollectiveFlows& cf, const std::vector<double>& rates);

} // namespace dcsim::fabric
