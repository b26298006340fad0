// What a job's checkpoints cost and which copies survive which failure (docs/recovery.md).
//
// Size. `checkpoint.size_gb`, or "auto" for a job with a model: the model's parameters P × 14 bytes
// (bf16 weights 2 + fp32 master weights, Adam's first and second moments 12: the state a restart needs,
// Rajbhandari et al., ZeRO, SC'20 §3.1; gradients are not saved). Every GPU writes and reads its shard,
// S/G bytes (sharded checkpointing, as torch.distributed.checkpoint and Megatron's distributed optimizer do).
//
// Time of one hop into tier t for a job of G GPUs on K racks (b in bytes/s, Gb/s × 1.25 × 10^8):
//   host_memory   (S/G) / b_write per GPU; then, with r peer replicas, r·(S/G) / b_replicate
//   local_nvme    (S/G) / b_write per GPU
//   rack_cache    S / (K · min(b_write per rack, b_uplink))
//   object_store  S / min(b_write, K · b_uplink)
// and a read the same with read bandwidths (a host_memory shard lost with its node comes back from a peer
// at b_replicate). Bandwidths are the tiers' own: jobs writing at once do not slow each other down here.
//
// The chain (checkpoint.tiers, fastest first). Synchronous: training blocks until the checkpoint is in the
// last tier: write = Σ hops. Asynchronous (the first tier must be host_memory): training blocks only for
// the snapshot into host memory, write = the first hop; the copy then drains tier after tier in the
// background, durable in tier i a lag L_i = Σ of the later hops up to i after the snapshot ends (peer
// replication first). Its interval must leave time for the drain: τ + write ≥ L_last.
//
// Which copies a failure leaves (by the failure mode's scope):
//   fabric elements                     every copy survives (memory and disks are intact)
//   gpu                                 loses host_memory without peers (the node is drained and rebooted)
//   tray, node                          also loses local_nvme
//   rack, power_shelf, cooling branch/valve   also loses rack_cache
//   cooling pump, loop, facility        also loses host_memory with peers (peers may share the loop)
//   object_store copies survive everything.
// A chain must hold a tier that survives each failure mode of the scenario. After a failure of mode m the
// job restores from the first tier of its chain that survives m (load_s[m]); an asynchronous job whose
// last checkpoint is younger than that tier's lag falls back to the one before (loss_window_s[m] = L).
#pragma once

#include "models/failure/spec.hpp"
#include "models/hardware/layout.hpp"
#include "models/storage/spec.hpp"
#include "models/workload/spec.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::storage {

inline constexpr double CHECKPOINT_BYTES_PER_PARAM = 14.0; ///< bf16 weights 2 + fp32 optimizer state 12
inline constexpr double BYTES_PER_GB = 1e9;

/// Checkpoint size (bytes) from a model: total parameters × 14.
double model_checkpoint_bytes(const workload::ModelJobSpec& model);
/// A job's checkpoint size (bytes): checkpoint.size_gb, or from its model.
double checkpoint_bytes(const workload::JobSpec& job);
/// Racks a job of `gpus` GPUs spans when placed alone: its NVLink domains' GPUs over the rack's GPUs.
int job_racks(const hardware::Layout& layout, int gpus);

/// True when a copy in `tier` survives a failure of `mode`.
bool copy_survives(const TierSpec& tier, const failure::FailureModeSpec& mode);

struct CheckpointPlan {
  double size_bytes = 0;
  std::vector<double> hop_s;         ///< per tier of the chain: the time of its hop
  double write_s = 0;                ///< blocking
  double durable_s = 0;              ///< from the start of a write until the copy is in the last tier
  std::vector<double> lag_s;         ///< per tier of the chain: durable there this long after write_s
  std::vector<int> restore_tier;     ///< per failure mode: the chain position it restores from
  std::vector<double> load_s;        ///< per failure mode: reading the checkpoint back
  std::vector<double> loss_window_s; ///< per failure mode: a checkpoint younger than this is lost
  double load_planned_s = 0;         ///< after a planned stop or a move: from the first tier surviving a node's loss
  // What storage flows need (storage/storage_network.hpp).
  std::vector<TierSpec> chain; ///< the tiers of checkpoint.tiers, in order
  bool async = false;
  int gpus = 0, racks = 0;
  double uplink_gbps = 0;
  /// Per failure mode: drain stages the newest checkpoint must have completed for a copy to survive it
  /// (stage 0 copies the snapshot to host memory peers, stage i ≥ 1 into chain tier i; 0: the snapshot).
  std::vector<int> need_stages;
  std::vector<bool> node_lost;  ///< per failure mode: it loses a node's memory (a restore from peers)
  int planned_tier = 0;         ///< the chain position a load after a planned stop or a move reads
};

/// A plan that cannot work: `key` is the job's checkpoint key at fault ("tiers", "async", "interval_s").
struct PlanProblem : std::invalid_argument {
  PlanProblem(std::string key_, const std::string& what) : std::invalid_argument(what), key(std::move(key_)) {}
  std::string key;
};

/// The plan of a job with checkpoint tiers (job.checkpoint.tiers not empty) on `racks` racks. Throws
/// PlanProblem for an unknown tier, a chain of which no copy survives a mode, or a capacity exceeded (the
/// scenario checks report it at the key).
CheckpointPlan plan_checkpoint(const workload::JobSpec& job, double size_bytes, const StorageSpec& storage,
                               const std::vector<failure::FailureModeSpec>& modes, int racks);

} // namespace dcsim::storage
