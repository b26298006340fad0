// Collectives across NVLink domains played as SimGrid communications on the fabric.
//
// FabricCommModel answers CommModel::time_s with the formulas of AlphaBetaCommModel (hierarchical ring,
// all-to-all, point-to-point; comm_model.hpp), except for B_net, the scale-out bandwidth per member: it
// is not a per-GPU figure but is measured by playing the collective's inter-domain traffic on the SimGrid
// platform (FabricPlatform: access links, leaf and pod bundles, their current capacities), over the
// job's real placement. Contention between groups at oversubscribed or degraded bundles, a job spread
// over more leaves, failed ports, leaves, spines and planes all reach the step time this way.
//
// The probe of one group shape starts, all at once, one bandwidth-equivalent flow per member and peer
// (SIMGRID-NOTES.md §3, "agg": a ring's D−1 steps collapsed into one transfer, their latencies added
// analytically by the formulas) and reads the rate SimGrid's max-min sharing gives each flow while all
// are in flight. A member's rate is its bytes over the time its slowest flow would need at that rate;
// B_net is the least member rate: a collective's steps run in lockstep, so no member finishes early and
// frees bandwidth for the others, and the slowest member sets the pace. Q = PROBE_BYTES per unit:
//   RING      (all-reduce, reduce-scatter, all-gather: the inter-domain phase of TP, CP, DP, expert DP)
//             member j of the group's domain d sends Q to member j of domain d + 1 (mod D)
//   ALL_TO_ALL (EP), routed as NCCL's PXN does: data for a remote GPU first crosses NVLink to the local
//             GPU on the destination's rail, so on the fabric member j of domain d sends k'·Q to member
//             j (mod k') of every other domain d' of k' members (member bytes (n − k)·Q)
//   SEND_RECV (PP): every pipeline boundary at once, rank r sends Q to rank r + stride
// Flows with an endpoint down or cut off are not played (the job is interrupted, not slowed, when that
// happens). The step model then uses B_net × nic_efficiency_frac (the NIC's achievable share of its
// line rate, the only factor of alpha_beta_params that belongs to the endpoint rather than to the
// fabric). NVLink stays analytic: a domain's switch is non-blocking, its share set by set_nvlink_bw_frac.
//
// Symmetry and aggregation. Flows of different groups can only meet on a leaf or pod bundle, and only
// bundles that can saturate are on routes (fabric_platform.hpp). When no bundle under the job's GPUs is
// on a route, every group runs alone on its members' access links: the probe plays the first group and
// every group with a member whose scale-out bandwidth is degraded, which gives the slowest group exactly.
// Otherwise it plays every group. The 2(D−1) steps of a ring are one flow per member, not 2(D−1).
//
// State and cache. The answer depends on the placement and on the fabric's capacities. The cache key
// (state_signature) is a class of states: the multiset of the job's GPUs per leaf (leaves are taken as
// interchangeable), the least share of scale-out bandwidth left to the job's GPUs and the NVLink share,
// both set by the caller. States of one class are taken to play alike; the first state met in a class
// is played and later ones reuse its answer. A miss probes every group shape announced by expect().
//
// The clock. Playing flows moves SimGrid's clock, which cannot go back: each shape is played in a
// forked child (sim::run_in_child) on its copy of the platform, which reports the bandwidth and exits.
// The caller's clock, platform and event queue are untouched, so probes may run in the process that
// builds the platform before replicas fork (whose caches the replicas inherit) and inside a replica.
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/hardware/rack_platform.hpp"
#include "models/workload/comm_model.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace dcsim::fabric {

/// Bytes of each probe flow: none can end while the rates are read (milliseconds after the start).
inline constexpr double PROBE_BYTES = 1e12;

class FabricCommModel final : public workload::CommModel {
public:
  /// The job's GPUs in rank order (ranks fill the job's NVLink domains in placement order).
  using Placement = std::function<std::vector<int>()>;

  /// `params`: NVLink bandwidth and latencies as alpha_beta_params gives them (its scale-out bandwidth
  /// is used only when a probe finds no flow to play); `nic_efficiency_frac` scales measured B_net.
  /// The fabric, platform and racks must outlive this object.
  FabricCommModel(const FabricPlatform& fabric, sim::Platform& platform, const hardware::RackPlatform& racks,
                  workload::AlphaBetaCommModel::Params params, double nic_efficiency_frac, Placement placement);

  double time_s(workload::Collective kind, const workload::CommGroup& group, double bytes) const override;
  std::uint64_t state_signature() const override;

  /// Where the job's GPUs are now (called on a cache miss only).
  void set_placement(Placement placement) { placement_ = std::move(placement); }
  /// The state class (see above): a key of the placement, the least scale-out share left to the job's
  /// GPUs, the NVLink share.
  void set_placement_key(std::uint64_t key) { placement_key_ = key; }
  void set_scale_out_bw_frac(double frac) { scale_out_bw_frac_ = frac; }
  void set_nvlink_bw_frac(double frac) { nvlink_bw_frac_ = frac; }
  /// Group shapes to probe together on a cache miss (one child process instead of one per shape).
  void expect(std::vector<workload::CommGroup> groups) { expected_ = std::move(groups); }

  /// Measured B_net of the group's pattern in the current state class, bytes/s per member, before
  /// nic_efficiency_frac; probes on a miss.
  double measured_bytes_per_s(workload::Collective kind, const workload::CommGroup& group) const;
  /// Probes run so far (one per cache miss, a child process per group shape), and flows they played.
  int probes() const { return probes_; }
  long long flows_played() const { return flows_played_; }

  /// Multiset key of GPUs per leaf: sum over leaves of leaf_count_key(count) (order-free, so it can be
  /// kept current by adding and subtracting one leaf's term when its count changes).
  static std::uint64_t leaf_count_key(int count);

private:
  enum class Pattern { RING, ALL_TO_ALL, PAIR };
  static Pattern pattern_of(workload::Collective kind);
  using ShapeKey = std::tuple<std::uint64_t, int, int, int>; ///< signature, pattern, ranks, stride

  const FabricPlatform* fabric_;
  sim::Platform* platform_;
  const hardware::RackPlatform* racks_;
  workload::AlphaBetaCommModel::Params params_;
  double nic_efficiency_frac_;
  Placement placement_;
  std::uint64_t placement_key_ = 0;
  double scale_out_bw_frac_ = 1.0;
  double nvlink_bw_frac_ = 1.0;
  std::vector<workload::CommGroup> expected_;
  mutable std::map<ShapeKey, double> measured_; ///< B_net, bytes/s per member
  mutable int probes_ = 0;
  mutable long long flows_played_ = 0;

  struct Shape {
    Pattern pattern;
    int ranks;
    int stride;
  };
  /// Plays a shape on the current platform (in this process: the caller forks) and returns its B_net
  /// (0 when it has no flow across domains) and the number of flows played.
  std::array<double, 2> play(const Shape& shape, const std::vector<int>& rank_gpus) const;
  void probe(const std::vector<Shape>& shapes) const;
};

} // namespace dcsim::fabric
