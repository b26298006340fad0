// Checkpoint drains and restores played as SimGrid flows in a replica's own clock (docs/recovery.md,
// "Storage flows"): the part of a replica that moves checkpoints over the StorageNetwork.
//
// Drains. When an asynchronous checkpoint's snapshot ends (the job's snapshot hook), its drain begins:
// stage 0 copies it to host memory peers, then stage i writes it into chain tier i, one flow per stage
// (one aggregate flow per job and stage: storage/storage_network.hpp). A copy is durable in tier i once
// stage i has ended. A job drains one checkpoint at a time: a snapshot taken while the previous drain
// is in flight waits, and a newer snapshot replaces a waiting one (which stays in host memory only:
// counted as skipped). A synchronous checkpoint, or a planned stop's final write, is durable everywhere
// when committed (its write is the closed form of storage/checkpoint_plan.hpp) and ends the wait of any
// older one; but for an object store out of reach: its copy then stops at the tier before (a write
// whose first tier is out of reach leaves no copy at all), its blocking time unchanged.
// Failures. A failure of mode m needs a copy in the plan's restore tier for m: the newest checkpoints
// whose drain has not completed the stages m needs (CheckpointPlan::need_stages) are lost, and the job
// falls back to the newest one that has (TrainingJob moves the lost segments to rework). A drain in
// flight of a lost checkpoint runs on (SimGrid cannot cancel it from outside an actor) but counts for
// nothing.
// Restores. A restart's load part is a flow of the checkpoint's S bytes from the restore tier of the
// failure that left the farthest one (a planned stop's or a move's: the first tier that survives a
// node's loss), from peers when the failure lost a node's memory. A flow that fails (a storage link
// off) reads from the next tier of the chain instead; with none left it retries every RETRY_S.
// Converged (storage.network "converged"): a hop that crosses the network (peer replication, a write
// into or a read from a rack_cache or object_store tier, a restore from peers) goes to the fabric hook
// (storage/fabric_storage.hpp: flows on the compute fabric) instead of a SimGrid flow; hops inside a
// node (host memory, local NVMe) stay SimGrid flows on their own links.
// Measured per job: drains completed and their durations (snapshot end to last stage), skipped
// snapshots, loads and their durations.
#pragma once

#include "models/storage/storage_network.hpp"
#include "sim/event_queue.hpp"
#include "sim/platform.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcsim::storage {

class StorageTraffic {
public:
  static constexpr double RETRY_S = 60; ///< a restore with no reachable tier tries again this much later

  StorageTraffic(const StorageNetwork& network, sim::Platform& platform, sim::EventQueue& queue,
                 const std::vector<std::optional<CheckpointPlan>>& plans);

  /// TrainingJob's hooks for job `job` (models/workload/training_job.hpp).
  int snapshot(int job, bool durable);
  int lost(int job, int mode);
  void load(int job, int mode, std::function<void()> done);

  /// Object store `name` keeps `bandwidth_frac` of its bandwidth from now on: 0 out of reach (its link
  /// off, flows through it fail), in (0, 1) degraded (flows through it slow down), 1 repaired.
  void store_changed(const std::string& name, double bandwidth_frac);

  /// Converged: moves `bytes` of job `job` between its GPUs and chain position `position` (write: into
  /// it; `peers`: host memory peers), then calls done(ok).
  using FabricHop = std::function<void(int job, int position, bool write, bool peers, double bytes,
                                       std::function<void(bool)> done)>;
  void set_fabric_hop(FabricHop hop) { hop_ = std::move(hop); }

  struct Measured {
    std::uint64_t drains = 0;  ///< drains that reached the last tier
    std::uint64_t skipped = 0; ///< snapshots replaced while waiting for a drain
    double drain_s_sum = 0, drain_s_max = 0;
    std::uint64_t loads = 0;
    double load_s_sum = 0;
  };
  const Measured& measured(int job) const { return jobs_.at(static_cast<std::size_t>(job)).measured; }
  bool active(int job) const { return jobs_.at(static_cast<std::size_t>(job)).plan != nullptr; }

private:
  struct Record {
    std::uint64_t serial = 0;
    int stages_done = 0;
    sim::Tick taken = 0; ///< the snapshot's end
  };
  struct Job {
    const CheckpointPlan* plan = nullptr;
    std::deque<Record> records; ///< newest last; nothing older than the newest durable everywhere
    std::uint64_t next_serial = 1;
    std::uint64_t draining = 0; ///< serial of the drain in flight (0: none)
    std::uint64_t waiting = 0;  ///< serial of the snapshot waiting for it (0: none)
    Measured measured;
  };
  const StorageNetwork* network_;
  sim::Platform* platform_;
  sim::EventQueue* queue_;
  std::vector<Job> jobs_;
  std::set<std::string> down_stores_; ///< object stores out of reach
  FabricHop hop_;
  /// Plays one hop: over the fabric hook when set and the hop crosses the network, else a SimGrid flow.
  void move(int job, const StorageNetwork::Flow& f, int position, bool write, bool peers, std::function<void(bool)> done);

  Record* find(Job& job, std::uint64_t serial);
  void start_drain(int job, std::uint64_t serial);
  void run_stage(int job, std::uint64_t serial, int stage);
  void drain_ended(int job);
  void prune(Job& job);
  void read(int job, int position, bool node_lost, sim::Tick began, std::function<void()> done);
};

} // namespace dcsim::storage
