// Storage (`/storage`): where checkpoints are kept, tier by tier (docs/recovery.md).
//
// A tier is one kind of place a copy of a checkpoint can live, with its bandwidth and capacity in the
// unit that kind scales with:
//   kind          scales per   what loses a copy (storage/checkpoint_plan.hpp)
//   host_memory   GPU          the node's loss (hardware, power, cooling faults), unless peer_replicas
//                              copies sit in other racks' memory: then only a fault of many racks
//   local_nvme    GPU          the loss of its tray, node or rack (a GPU fault leaves the host readable)
//   rack_cache    rack         the loss of its rack (LOTA: a rack-local cache in front of the object store)
//   object_store  cluster      nothing: an outage (failure scope object_store) makes it unreachable only
// A job's data reach rack_cache and object_store tiers through its racks' storage uplinks
// (rack_uplink_gbps each): its aggregate bandwidth to such a tier is min(tier, racks × uplink).
//
// Defaults by kind (ESTIMATES from public figures, override for a real design):
//   host_memory  write 1,600 Gb/s per GPU (200 GB/s: a pinned device-to-host copy over NVLink-C2C, whose
//                900 GB/s per Grace superchip serves two GPUs; PCIe Gen5 x16 hosts get ~500 Gb/s),
//                read 1,600, replicate 200 Gb/s per GPU (a BlueField-3 tray of 4 GPUs on 2 × 400G),
//                capacity 240 GB per GPU (480 GB of LPDDR5X per Grace serving two GPUs)
//   local_nvme   write 100, read 200 Gb/s per GPU (Gen5 NVMe ~12 GB/s write, ~14 GB/s read per drive,
//                one drive per GPU), capacity 3,840 GB per GPU
//   rack_cache   write 3,200, read 6,400 Gb/s per rack, capacity 500,000 GB per rack
//   object_store write 8,000, read 16,000 Gb/s for the cluster (1 and 2 TB/s), capacity 10^8 GB
//   rack_uplink_gbps 6,400 (18 trays × 400G of front-end network per NVL72 rack, less oversubscription)
// 1 Gb/s = 1.25 × 10^8 bytes/s; 1 GB = 10^9 bytes.
#pragma once

#include "sim/json_reader.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::storage {

enum class TierKind { HOST_MEMORY, LOCAL_NVME, RACK_CACHE, OBJECT_STORE };
std::string_view tier_kind_name(TierKind kind);

struct TierSpec {
  std::string name;
  TierKind kind = TierKind::OBJECT_STORE;
  double write_gbps = 0;     ///< per GPU (host_memory, local_nvme), per rack (rack_cache), or in all
  double read_gbps = 0;      ///< as write_gbps
  double capacity_gb = 0;    ///< as write_gbps
  int peer_replicas = 0;     ///< host_memory: copies kept in other racks' host memory
  double replicate_gbps = 0; ///< host_memory: per GPU, towards its peers (and back at a restore)
};

struct StorageSpec {
  double rack_uplink_gbps = 6400; ///< each rack's link into the storage network
  std::vector<TierSpec> tiers;
  /// `network`: false (separate) a storage network of its own; true (converged) on the compute fabric.
  bool converged = false;
  /// The tier named `name`; nullptr when there is none.
  const TierSpec* find(std::string_view name) const;
  /// Names of the object_store tiers, in order: the units of failure scope object_store.
  std::vector<std::string> object_stores() const;
};

const sim::KeyTable& storage_keys();
const sim::KeyTable& tier_keys();

/// Decodes /storage.
StorageSpec decode_storage(const sim::Node& storage);

} // namespace dcsim::storage
