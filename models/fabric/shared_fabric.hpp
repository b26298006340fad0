// One network per replica: every training job's fabric traffic by phase over the same links.
//
// The isolated probe (fabric_comm_model.hpp) prices each job's collectives alone; this part decides
// how much slower each phase runs because other jobs' flows share its links, as a factor per phase
// that multiplies the job's measured β (FabricCommModel::set_shared_factors), so that each job's step
// time follows from what its flows get and a job alone keeps today's figure exactly (factor 1).
//
// Traffic. A job registers, for its GPUs in rank order, its step as `local_s` (compute, NVLink,
// latencies, optimizer: the step's time minus its fabric part) and one phase per parallel axis that
// crosses NVLink domains (DP/expert-DP/CP rings, PP sends, EP all-to-all as PXN), each with the
// seconds its bandwidth term takes alone (the part of the step proportional to β, which the job pace
// derives from the step model) and its flows (collective_flows.hpp, every group). Other traffic
// (a checkpoint drain on a converged fabric) registers as flows in flight throughout.
// Coupling (FABRIC-SHARING.md §3.1). Flows of different jobs can only meet on a leaf or pod bundle
// that is on routes (it can saturate: oversubscription, routing efficiency < 1, failed uplinks;
// fabric_platform.hpp). A job touches the bundle of a leaf (pod) it has GPUs on when it spans more than
// one leaf (pod). Jobs that transitively share a touched bundle form a component (union-find); a
// singleton keeps factor 1 without any solve. A job that can touch a bundle (GPUs on several leaves
// under bundles on routes) is refined by its flows: the bundles its flows' routes cross (rail-aligned
// rings under one leaf touch none). Each component of two or more is solved as one
// max-min problem over the platform's links and capacities (phase_play.hpp: the phase-level play or
// the duty-cycle model, by `phase_overlap`).
// Routing (FABRIC-SHARING.md §3.7). `ideal` (adaptive routing, packet spraying): the platform's
// aggregated bundles, shared evenly. `ecmp_hash` (ecmp_hash.hpp): every connection crossing leaves is
// s subflows pinned to single uplinks and downlinks by a seeded hash, each uplink a link of one port;
// every leaf bundle under a job spanning leaves is then touched (a non-blocking bundle collides too),
// and a job alone is solved as well: its phase factor is τ(hashed)/τ(ideal) (the isolated probe is
// ideal), times what sharing adds on top.
// NIC efficiency. The access links (a GPU's ports) enter the solve at nic_efficiency_frac of their
// line rate, so shared bundles are compared with what NICs really push; the isolated probe's β keeps
// dividing by it afterwards (fabric_comm_model.hpp), and factors are ratios within this solve.
// Converged storage (storage.network "converged", docs/tenants.md). Storage nodes attach to the top
// tier of every plane (dedicated spine or core ports), one sink link per storage target whose capacity
// is the target's bandwidth C (add_sink: an object store's write and read, a job's rack caches or its
// host memory peers). A storage flow of GPU g (set_storage) runs over [access(g), leaf bundle of g's
// leaf (when on routes), pod bundle of its pod (when on routes), sink share] upwards for a write, the
// reverse halves for a read; with ecmp_hash each flow's s subflows take hashed single uplinks of its
// leaf instead of the leaf bundle. The m hops in flight on one sink split it evenly, each seeing a link
// of C/m (max-min's answer whenever the sink binds each of them, as on the separate storage network;
// it keeps writers to one store out of one another's components: a store shared by every job would
// otherwise couple them all into one solve per checkpoint). A storage entry touches the leaf and pod
// bundles on its flows' routes and joins its owner job's component (they share the owner's access
// links). It is a background: one phase in flight throughout; its rate is
//   r = PROBE_BYTES / (τ_alone · F)   bytes/s per GPU (the slowest GPU's flow, lockstep)
// with τ_alone its phase's τ with no other flow and F its phase factor from the play or the duty-cycle
// model (1 alone): a hop of S bytes sharded over n GPUs then takes S / (n · r).
// Re-solving. set_job / remove_job / set_background mark the job dirty; resolve() recomputes the
// components (each entry's touched bundles are kept until its traffic or the fabric's capacities
// change) and solves only those holding a dirty job or whose membership changed; a change of the
// fabric's capacities (a link or plane fails or heals) is announced with capacities_changed(), which
// solves every component again. Engine-free: the platform's links are read, never played.
#pragma once

#include "models/fabric/collective_flows.hpp"
#include "models/fabric/fabric_platform.hpp"
#include "models/fabric/phase_play.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace dcsim::fabric {

struct TrafficPhase {
  FlowPattern pattern = FlowPattern::RING;
  int ranks = 1;
  int stride = 1;
  double alone_s = 0; ///< the phase's bandwidth term alone, s per step
};

struct JobTraffic {
  std::vector<int> rank_gpus;
  double local_s = 0;
  std::vector<TrafficPhase> phases;
  std::uint64_t key = 0; ///< changes whenever anything above changes (set_job skips an equal key)
};

struct SharedRouting {
  bool ecmp_hash = false; ///< else ideal
  int subflows = 1;       ///< per connection: collective channels × QPs per connection
  std::uint64_t seed = 0; ///< the switches' hash seed
  /// The NIC's achievable share of its line rate, a cap on the access links inside the solve (so a
  /// bundle that binds below it and a NIC that binds first are told apart).
  double nic_efficiency_frac = 1.0;
};

class SharedFabric {
public:
  /// The fabric must outlive this object. `seed`: the random offsets' stream.
  SharedFabric(const FabricPlatform& fabric, PhaseOverlap overlap, std::uint64_t seed, SharedRouting routing = {});

  void set_job(int job, JobTraffic traffic);
  void remove_job(int job);
  /// Flows in flight throughout (GPU pairs and bytes/s-insensitive: each pair is one unit flow), under
  /// `id` (a checkpoint drain); an empty list removes them.
  void set_background(int id, std::vector<std::pair<int, int>> pairs);
  void capacities_changed() {
    all_dirty_ = true;
    cache_.clear();
    pairs_.clear();
    for (auto& [id, e] : entries_) // bundles may have entered or left routes
      e.bundles_known = false;
  }

  /// A storage target on the fabric (above): returns its sink id. Capacities in bytes/s.
  int add_sink(double write_bytes_per_s, double read_bytes_per_s);
  /// A sink's capacities change (an object store degraded, out of reach: 0); its entries re-solve.
  void set_sink_capacity(int sink, double write_bytes_per_s, double read_bytes_per_s);
  /// Storage flows under background `id` between each of `gpus` and sink `sink`, in flight throughout:
  /// writes (GPU to sink) or reads; `owner`: the job whose traffic this is (-1: none). An empty list
  /// removes them.
  void set_storage(int id, std::vector<int> gpus, int sink, bool write, int owner);
  /// Background `id`'s rate per GPU (bytes/s, r above) after the last resolve; 0 when blocked or unknown.
  double background_rate(int id) const;

  /// Re-solves what changed; returns the jobs whose factors changed.
  std::vector<int> resolve();
  /// The job's factor per registered phase (1 alone, or for a job not registered).
  const std::vector<double>& factors(int job) const;
  /// Jobs in the job's component (1: alone).
  int component_size(int job) const;
  long long solves() const { return solves_; }
  /// Of solves(): components found solved before (same members, traffic, GPUs and sink shares).
  long long cache_hits() const { return cache_hits_; }

private:
  static constexpr int NO_COMPONENT = std::numeric_limits<int>::min();
  struct Entry {
    JobTraffic traffic;
    std::vector<std::pair<int, int>> background; ///< for background entries
    bool is_background = false;
    int sink = -1;   ///< storage entries: their sink
    bool write = true;
    int owner = -1;  ///< storage entries: the job whose traffic it is
    double rate = 0; ///< backgrounds: r (bytes/s per GPU)
    std::vector<int> bundles; ///< saturable bundles touched: leaf l as l, pod c as leaves + c
    bool bundles_known = false; ///< `bundles` holds for its traffic and the routes as they are
    std::vector<double> factors;
    int component = NO_COMPONENT; ///< its least entry id (a background's is negative)
  };
  const FabricPlatform* fabric_;
  PhaseOverlap overlap_;
  std::uint64_t seed_;
  SharedRouting routing_;
  std::map<int, Entry> entries_; ///< jobs ≥ 0, background < 0 (id → −1 − id)
  std::map<int, std::vector<int>> members_; ///< component id (its least entry) → entries
  std::vector<int> dirty_;
  bool all_dirty_ = false;
  long long solves_ = 0;
  std::vector<double> ones_;
  std::vector<std::pair<double, double>> sinks_; ///< per sink: write, read capacity (bytes/s)
  std::vector<int> sink_users_;                  ///< per sink: storage entries on it (m)
  /// Background `id`'s storage flows (its sink share is link key sink_key(id)).
  PhaseFlows storage_flows(int id, const Entry& e, std::map<std::int64_t, int>& link_index) const;
  void sink_changed(int sink, int delta);

  std::vector<int> touched_bundles(const Entry& e) const;
  std::map<int, int> bundle_of_link_; ///< platform link of a bundle half -> bundle id
  /// Solved components by signature (every member's kind, traffic key, GPUs and sink share; with
  /// random offsets, the component's seed): jobs that checkpoint repeat the same components. Emptied
  /// when capacities change, and when it holds MAX_CACHED.
  static constexpr std::size_t MAX_CACHED = 4096;
  std::map<std::vector<std::uint64_t>, std::vector<std::pair<std::vector<double>, double>>> cache_;
  long long cache_hits_ = 0;
  std::vector<std::uint64_t> signature(const std::vector<int>& component) const;
  /// One member's part of a signature: its kind, traffic key, GPUs (a hash) and sink share.
  std::vector<std::uint64_t> member_signature(int id) const;
  /// Pairs of phases solved by the duty-cycle model, by their members' signatures: a drain that starts
  /// or ends changes its component (and every drain's sink share), but most pairs in the new component
  /// were solved before. Emptied with cache_.
  mutable PairTaus pairs_;
  /// Per member of `component`: its phase factors and (backgrounds) rate.
  std::vector<std::pair<std::vector<double>, double>> compute(const std::vector<int>& component) const;
  void build_phases(const std::vector<int>& component, std::map<std::int64_t, int>& link_index,
                    std::vector<PhaseJob>& jobs, std::vector<PhaseJob>& ideal, std::vector<int>& ids) const;
  /// Solves one component; returns the jobs whose factors changed.
  void solve(const std::vector<int>& component, std::vector<int>& changed);
  /// The flows over the platform's routes (`hashed`: over single uplinks, ecmp_hash.hpp); links are
  /// numbered in `link_index` (platform links ≥ 0, single uplinks by negative keys).
  PhaseFlows phase_flows(const CollectiveFlows& cf, std::map<std::int64_t, int>& link_index, bool hashed) const;
  /// Capacity of a link of `link_index`'s keys.
  double capacity_of(std::int64_t key) const;
};

} // namespace dcsim::fabric
