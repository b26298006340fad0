// The storage network in the SimGrid platform: where checkpoint drains and restores flow
// (docs/recovery.md, "Storage flows"). Built once per process by the World, beside the fabric (a
// section of the same platform, with its own router: storage traffic rides a front-end network of its
// own, as on NVL72 racks whose BlueField front-end ports are not the scale-out fabric's).
//
// Every job with a checkpoint plan gets one host (its GPUs, aggregated) and, per tier of its chain, the
// links below; object_store tiers are one host and one link shared by every job, which is where jobs'
// checkpoints and restores contend. Capacities (b in bytes/s from the tiers' Gb/s, G GPUs, K racks):
//   job uplink            K × rack_uplink_gbps each way (its racks' storage uplinks, together)
//   host_memory  local    G × write into, G × read out of      peers   G × replicate each way
//   local_nvme            G × write into, G × read out of
//   rack_cache            K × write into, K × read out of
//   object_store (shared) write into, read out of, once for all jobs
// Routes (a drain writes from the job into a tier, a restore reads from the tier into the job):
//   stage 0  replication to peers   [peers in]            r × S bytes (r peer replicas)
//   stage i  into tier i            host_memory, local_nvme: [tier in]; rack_cache, object_store:
//                                   [job uplink out, tier in]                          S bytes
//   restore from tier i             the reverse links; host memory of a lost node from its peers
// One flow of S bytes alone on such a route takes exactly the closed form of storage/checkpoint_plan.hpp
// (min over the route's links); several sharing a link get SimGrid's max-min shares.
//
// What it cannot represent: jobs sharing a rack do not share its uplink (each job's uplink is its own
// aggregate), a job's uplink keeps the capacity of the racks it spans when placed alone, and per-GPU
// tiers never contend between jobs (they are each GPU's own).
#pragma once

#include "models/storage/checkpoint_plan.hpp"
#include "sim/platform.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::storage {

class StorageNetwork {
public:
  /// Adds the hosts, links and router of the jobs' storage to `platform` (not yet sealed); `plans` per
  /// job (nullopt: a job without storage tiers).
  StorageNetwork(sim::Platform& platform, const std::vector<std::optional<CheckpointPlan>>& plans);

  struct Flow {
    int src_host = -1;
    int dst_host = -1;
    double bytes = 0;
  };
  /// Stages of a job's drain: 0 (peers) and one per later tier of its chain.
  int stages(int job) const;
  /// Stage `stage` of job `job`'s drain (bytes 0: nothing to move, a host_memory tier without peers).
  Flow drain(int job, int stage) const;
  /// A restore of job `job` from chain position `position`; `node_lost`: host memory comes from peers.
  Flow load(int job, int position, bool node_lost) const;
  /// The platform's link indices of a tier's link: for an object_store its shared link, for other kinds
  /// job `job`'s (for tests and storage faults).
  sim::Platform::DuplexLink tier_link(int job, int position) const;
  /// The link to host memory peers of job `job`'s chain position `position` (a host_memory tier with peers).
  sim::Platform::DuplexLink peers_link(int job, int position = 0) const;
  /// The shared link of object_store tier `name` (nullopt: no job's chain uses it).
  std::optional<sim::Platform::DuplexLink> store_link(const std::string& name) const;
  /// The healthy capacities (bytes/s) of object_store tier `name`'s link: into it, out of it.
  std::pair<double, double> store_bandwidth(const std::string& name) const;
  /// The first and one past the last host index of the storage section.
  std::pair<int, int> hosts() const { return {first_host_, end_host_}; }

private:
  struct TierHosts {
    int host = -1;       ///< the tier's copy (its local side)
    int peers_host = -1; ///< host_memory: the copies in peers' memory
    sim::Platform::DuplexLink link, peers;
    double in_bps = 0, out_bps = 0; ///< object stores: the link's healthy capacities
  };
  struct JobNet {
    const CheckpointPlan* plan = nullptr;
    int host = -1;
    sim::Platform::DuplexLink uplink;
    std::vector<TierHosts> tiers; ///< per chain position
  };
  std::vector<JobNet> jobs_;
  std::map<std::string, TierHosts> shared_; ///< object_store tiers by name
  std::map<std::pair<int, int>, std::vector<int>> routes_;
  int first_host_ = 0, end_host_ = 0;
};

} // namespace dcsim::storage
