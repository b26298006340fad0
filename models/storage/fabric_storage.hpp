// Converged storage (storage.network "converged", docs/tenants.md): checkpoint hops that cross the
// network travel on the compute fabric, as storage flows of the shared fabric (fabric/shared_fabric.hpp),
// so they slow the collectives of jobs on the same links and their own rate follows from what their
// flows get.
//
// Where storage attaches. Storage nodes hang off the top tier of every plane (dedicated spine ports
// with two tiers, core ports with three): a hop between job j's n GPUs and a target crosses each GPU's
// access link, its leaf's bundle and its pod's bundle (when on routes), and the target's sink link,
// whose capacity is the target's bandwidth in the storage spec (b in bytes/s, Gb/s × 1.25 × 10^8):
//   object_store tier   one sink per store, shared by every job: write b_write, read b_read
//                       (× the store's bandwidth_frac while degraded; 0 out of reach); the m hops
//                       in flight on a sink split it evenly (C/m each: fabric/shared_fabric.hpp)
//   rack_cache tier     one sink per job: K · b_write, K · b_read (its K racks' caches)
//   host memory peers   one sink per job: G · b_replicate each way (its shards' peers)
// rack_uplink_gbps plays no part: the fabric's access links and bundles are the way to storage.
// Hops inside a node (host memory, local NVMe) are not network traffic and stay where they were.
//
// Timing. A hop of S bytes starts with its flows registered (SharedFabric::set_storage, owner j) and a
// re-solve (the jobs sharing links with it slow down at once). Its rate is R = n · r, r the per-GPU
// rate of its flows from the solve (the slowest GPU's: the shards land together); its remaining bytes
// X fall at R, and after every re-solve (any job's or hop's start or end, a failure, a repair) the hop
// is re-timed: X ← X − R_old · Δt, then its end is at now + X / R_new. At its end its flows leave and
// the fabric is solved again. A hop whose flows are all blocked (R = 0: its store out of reach, its
// links failed) fails at once, as a SimGrid flow through a link that is off does.
// A job holding no GPUs when a hop begins (a restore before placement) moves at the sink's capacity.
#pragma once

#include "models/fabric/shared_fabric.hpp"
#include "models/storage/checkpoint_plan.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::storage {

class FabricStorage {
public:
  /// `gpus(job)`: the job's GPUs now; `resolve()`: re-solves the shared fabric and applies the jobs'
  /// paces (it must call retime() after the solve). All must outlive this object.
  FabricStorage(fabric::SharedFabric& net, sim::EventQueue& queue, const std::vector<std::optional<CheckpointPlan>>& plans,
                std::function<std::vector<int>(int job)> gpus, std::function<void()> resolve);

  /// StorageTraffic's fabric hop (storage_traffic.hpp).
  void hop(int job, int position, bool write, bool peers, double bytes, std::function<void(bool)> done);
  /// Re-times every hop in flight after a solve.
  void retime();
  /// Object store `name` keeps `bandwidth_frac` of its bandwidth.
  void store_changed(const std::string& name, double bandwidth_frac);
  /// Hops in flight.
  bool busy() const { return !flights_.empty(); }

private:
  struct Flight {
    int job = 0;
    int gpus = 0;
    double sink_bps = 0;  ///< without GPUs: the sink's capacity
    double left = 0;      ///< bytes
    double rate = 0;      ///< bytes/s, R
    sim::Tick since = 0;  ///< date of `left`
    sim::EventQueue::EventId end;
    bool failing = false; ///< blocked: fails at the next event
    std::function<void(bool)> done;
  };
  fabric::SharedFabric* net_;
  sim::EventQueue* queue_;
  const std::vector<std::optional<CheckpointPlan>>* plans_;
  std::function<std::vector<int>(int)> gpus_;
  std::function<void()> resolve_;
  std::map<std::string, int> stores_;          ///< object store name -> sink
  std::map<std::string, std::pair<double, double>> store_bps_; ///< healthy write, read
  std::map<std::string, double> store_frac_;                   ///< bandwidth share left
  std::map<std::pair<int, int>, int> job_sinks_; ///< (job, position; -1: peers) -> sink
  std::map<int, Flight> flights_;                ///< by background id
  std::vector<std::pair<double, double>> sink_bps_; ///< per sink: write, read (bytes/s) now
  int next_id_ = 0;
  bool resolve_due_ = false;

  int sink_of(int job, int position, bool peers);
  int add_sink(double write_bps, double read_bps);
  void finish(int id, bool ok);
  /// Re-solves at the next event of this date (never inside a job's hook that started or ended a hop).
  void request_resolve();
};

} // namespace dcsim::storage
