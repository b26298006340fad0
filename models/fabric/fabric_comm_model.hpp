// Collectives across NVLink domains priced by the max-min sharing of their flows on the fabric.
//
// FabricCommModel answers CommModel::time_s with the hierarchical formulas of AlphaBetaCommModel
// (comm_model.hpp: NVLink phase over k members per domain, then the scale-out phase across D = ceil(n/k)
// domains, latencies per step), except that the scale-out phase's bandwidth term is not S/(k·B_net)-like
// arithmetic on a per-GPU figure: it is S·β/η, β (seconds per byte of S) measured from the rates the
// collective's inter-domain traffic gets on the fabric platform's links (FabricPlatform: access links,
// leaf and pod bundles, their current capacities) over the job's real placement, η = nic_efficiency_frac (the NIC's
// achievable share of its line rate, the endpoint's factor). Contention between groups at oversubscribed
// or degraded bundles, groups split unevenly over domains, a job spread over more leaves, failed ports,
// leaves, spines and planes all reach the step time this way. NVLink stays analytic (a domain's switch
// is non-blocking; its share is set by set_nvlink_bw_frac), and so does the choice of which groups cross
// domains (the group's ranks_per_domain, from the parallelism and the usable GPUs per domain).
//
// The probe of one group shape starts, all at once, one bandwidth-equivalent flow per member and peer
// (docs/architecture.md, SimGrid, "agg": a ring's D−1 steps collapsed into one transfer, their latencies added
// by the formulas) and takes the rate max-min sharing gives each flow while all are in flight (a
// collective's steps run in lockstep, so no member finishes early and frees bandwidth for the others):
// fabric_rates (collective_flows.hpp), the engine-free max-min over the platform's routes and link
// capacities, which is the sharing SimGrid's CM02 model gives the same flows started at once
// (Platform::rates_isolated; the fabric tests compare the two on every probe pattern, with failures).
// A member's time t is its slowest flow's bytes over its rate; β is the largest t·w/Q over members
// (Q = PROBE_BYTES; c = members in the sender's domain, D = the group's domains):
//   RING       (all-reduce, reduce-scatter, all-gather: the inter-domain phase of TP, CP, DP, expert DP)
//              member j of domain d sends Q to member j mod c' of domain d + 1 (mod D); w = (D−1)/(D·c)
//              (it carries S/c over D − 1 steps). Aligned groups (c = k): S·β = (D−1)/D·S/k/B.
//   ALL_TO_ALL (EP), routed as NCCL's PXN does: data for a remote GPU first crosses NVLink to the local
//              GPU on the destination's rail, so on the fabric member j of domain d sends c'·Q to member
//              j mod c' of every other domain d' of c' members; w = 1/n (S·β = (n−c)/n·S/B)
//   SEND_RECV  (PP): every pipeline boundary at once, rank r sends Q to rank r + stride; w = 1
// A member cut off from the fabric sends nothing (the job is interrupted, not slowed, while it is); a
// member that is down sends as usual (the network is probed, not the GPUs). When
// nothing can be played (every flow blocked), the alpha-beta figure at the caller's share stands in.
//
// Symmetry and aggregation. Flows of different groups can only meet on a leaf or pod bundle, and only
// bundles that can saturate are on routes (fabric_platform.hpp). When no bundle under the job's GPUs is
// on a route, every group runs alone on its members' access links: the probe plays one group of each
// distinct split over domains (member counts per domain) and every group with a member whose scale-out
// bandwidth is degraded, which gives the slowest group exactly; for pipeline sends, one pair per
// (same leaf or not) relation and every pair with a degraded end. Otherwise it plays every group. The
// 2(D−1) steps of a ring are one flow per member, not 2(D−1).
//
// State and cache. The answer depends on the placement and on the fabric's capacities. The cache key
// (state_signature) is a class of states: a key of the placement (World: the multiset of the job's GPUs
// per leaf), the least share of scale-out bandwidth left to the job's GPUs, the least share left by
// their leaves alone (so that a GPU's own port at half and its leaf's uplinks at half differ) and the
// NVLink share, set by the caller. States of one class are taken to play alike; the first state met in
// a class is played and later ones reuse its answer. This is an approximation, kept because a
// 131,072-GPU probe costs seconds: states that share the class but not the answer exist (the same
// leaves holding the job's domains in another rank order; another leaf of a rail-optimised fabric;
// several degraded GPUs against one). A miss probes every group shape announced by expect().
//
// Sharing between replicas. Replicas inherit the World's cache (the healthy step) and keep what they
// probe later to themselves. Sharing by state class would make a replica's answer depend on which
// replica met the class first (outputs would change with -j); sharing by the exact probe input (shape,
// GPUs in rank order, their ports, their leaves' and pods' uplinks) would be exact but rarely hits, as
// replicas differ in which GPU or rack failed. A probe costs O(flows × route length × log links): a
// 131,072-GPU job's DP rings (254k flows) solve in about 0.2 s (tools/bench step).
//
// Sharing with other jobs. The probe prices the job alone; set_shared_factors multiplies each axis's β
// by what the shared fabric (shared_fabric.hpp) finds other jobs' flows cost it (1 alone: the figure
// above, exactly). The factors are part of the state signature.
//
// The clock. A probe reads the platform's routes and capacities and plays nothing: SimGrid's clock,
// the caller's event queue and transfers in flight are untouched, so probes run in the process that
// builds the platform before replicas fork (whose caches the replicas inherit) and inside a replica,
// with no child process. (Until this version each shape was played by SimGrid in a forked child: 7 s
// at 131,072 GPUs, mostly page faults and SimGrid's per-flow objects; the rates agree to 1e-9.)
#pragma once

#include "models/fabric/collective_flows.hpp"
#include "models/fabric/fabric_platform.hpp"
#include "models/fabric/comm_model.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace dcsim::fabric {

class FabricCommModel final : public CommModel {
public:
  /// The job's GPUs in rank order (ranks fill the job's NVLink domains in placement order).
  using Placement = std::function<std::vector<int>()>;

  /// `params`: NVLink bandwidth and latencies as alpha_beta_params gives them (its scale-out bandwidth
  /// is used only when a probe can play no flow); `nic_efficiency_frac` η divides the measured β.
  /// The fabric (and its platform) must outlive this object.
  FabricCommModel(const FabricPlatform& fabric, AlphaBetaCommModel::Params params, double nic_efficiency_frac,
                  Placement placement);

  double time_s(Collective kind, const CommGroup& group, double bytes) const override;
  std::uint64_t state_signature() const override;

  /// Where the job's GPUs are now (called on a cache miss only).
  void set_placement(Placement placement) { placement_ = std::move(placement); }
  /// The state class (see above): a key of the placement, the least scale-out share left to the job's
  /// GPUs, the NVLink share.
  void set_placement_key(std::uint64_t key) { placement_key_ = key; }
  void set_scale_out_bw_frac(double frac) { scale_out_bw_frac_ = frac; }
  /// The least share left by the leaves under the job (uplinks, leaves of a plane), apart from ports.
  void set_leaf_bw_frac(double frac) { leaf_bw_frac_ = frac; }
  void set_nvlink_bw_frac(double frac) { nvlink_bw_frac_ = frac; }
  /// Sharing with other jobs (shared_fabric.hpp): the factor per axis (index: GroupAxis) that multiplies
  /// the measured β of that axis's groups (1: alone, today's figure). Part of the state signature.
  void set_shared_factors(const std::array<double, 6>& factors) { shared_ = factors; }
  const std::array<double, 6>& shared_factors() const { return shared_; }
  /// Group shapes to probe on a cache miss, all at once (a miss costs one probe, not one per shape).
  void expect(std::vector<CommGroup> groups) { expected_ = std::move(groups); }

  /// Measured β of the group's pattern in the current state class (seconds per byte of S, before η);
  /// probes on a miss.
  double measured_s_per_byte(Collective kind, const CommGroup& group) const;
  /// The same as the scale-out bandwidth per member that gives β in the alpha-beta formula with the
  /// group's own k and D (bytes/s, before η; 0 when nothing could be played).
  double measured_bytes_per_s(Collective kind, const CommGroup& group) const;
  /// Probes run so far (one per cache miss, every expected group shape), and flows they priced.
  int probes() const { return probes_; }
  long long flows_played() const { return flows_played_; }

  /// Multiset key of GPUs per leaf: sum over leaves of leaf_count_key(count) (order-free, so it can be
  /// kept current by adding and subtracting one leaf's term when its count changes).
  static std::uint64_t leaf_count_key(int count);

private:
  enum class Pattern { RING, ALL_TO_ALL, PAIR };
  static Pattern pattern_of(Collective kind);
  /// The part of the state class the measured β depends on (all but the NVLink share).
  std::uint64_t fabric_state() const;
  using ShapeKey = std::tuple<std::uint64_t, int, int, int>; ///< signature, pattern, ranks, stride

  const FabricPlatform* fabric_;
  AlphaBetaCommModel::Params params_;
  double nic_efficiency_frac_;
  Placement placement_;
  std::uint64_t placement_key_ = 0;
  double scale_out_bw_frac_ = 1.0;
  double leaf_bw_frac_ = 1.0;
  double nvlink_bw_frac_ = 1.0;
  std::array<double, 6> shared_{1, 1, 1, 1, 1, 1};
  std::vector<CommGroup> expected_;
  mutable std::map<ShapeKey, double> measured_; ///< β, seconds per byte of S
  mutable int probes_ = 0;
  mutable long long flows_played_ = 0;

  struct Shape {
    Pattern pattern;
    int ranks;
    int stride;
  };
  /// Prices a shape on the current platform's capacities and returns its β (0 when it has no flow
  /// across domains) and the number of flows.
  std::array<double, 2> play(const Shape& shape, const std::vector<int>& rank_gpus) const;
  void probe(const std::vector<Shape>& shapes) const;
};

} // namespace dcsim::fabric
