#include "models/storage/spec.hpp"

#include <fmt/format.h>

#include <array>
#include <set>

namespace dcsim::storage {

std::vector<std::string> StorageSpec::object_stores() const {
  std::vector<std::string> names;
  for (const auto& t : tiers)
    if (t.kind == TierKind::OBJECT_STORE) names.push_back(t.name);
  return names;
}

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {

struct KindDefaults {
  TierKind kind;
  std::string_view word;
  double write_gbps, read_gbps, capacity_gb, replicate_gbps;
};
// Sources in spec.hpp.
constexpr std::array<KindDefaults, 4> KINDS{{
    {TierKind::HOST_MEMORY, "host_memory", 1600, 1600, 240, 200},
    {TierKind::LOCAL_NVME, "local_nvme", 100, 200, 3840, 0},
    {TierKind::RACK_CACHE, "rack_cache", 3200, 6400, 500000, 0},
    {TierKind::OBJECT_STORE, "object_store", 8000, 16000, 1e8, 0},
}};

std::string by_kind(double KindDefaults::*field, std::string_view unit_note) {
  std::string note = "by kind:";
  for (const auto& k : KINDS)
    if (k.*field > 0) note += fmt::format(" {} {}", k.word, k.*field);
  return note + " (" + std::string(unit_note) + "; estimates, sources in docs/recovery.md)";
}

} // namespace

std::string_view tier_kind_name(TierKind kind) {
  for (const auto& k : KINDS)
    if (k.kind == kind) return k.word;
  return "?";
}

const TierSpec* StorageSpec::find(std::string_view name) const {
  for (const auto& t : tiers)
    if (t.name == name) return &t;
  return nullptr;
}

// clang-format off
const KeyTable& storage_keys() {
  static const KeyTable table{
      "storage", "/storage", "where checkpoints are kept: tiers with bandwidth and capacity (docs/recovery.md)",
      {
          KeyDef{"rack_uplink_gbps", ValueType::NUMBER, "Gb/s", 6400.0,
                 "each rack's link into the storage network (reaches rack_cache and object_store tiers)",
                 sim::positive()},
          KeyDef{"tiers", ValueType::ARRAY, "", Json::array(), "storage tiers (see /storage/tiers/*)"},
          KeyDef{"network", ValueType::STRING, "", "separate",
                 "separate: checkpoint traffic rides a storage network of its own; converged: drains and "
                 "restores over rack_cache and object_store tiers and peer replication travel on the compute "
                 "fabric, sharing its links with the jobs' collectives (needs /fabric with shared true; "
                 "docs/tenants.md)", {}, {"separate", "converged"}},
      }};
  return table;
}

const KeyTable& tier_keys() {
  static const KeyTable table{
      "storage", "/storage/tiers/*", "one storage tier: a kind of place a checkpoint copy lives",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr, "the tier's name, as jobs' checkpoint tiers list it"},
          KeyDef{"kind", ValueType::STRING, "", nullptr,
                 "host_memory and local_nvme scale per GPU, rack_cache per rack, object_store is one for the "
                 "cluster", {}, {"host_memory", "local_nvme", "rack_cache", "object_store"}},
          KeyDef{"write_gbps", ValueType::NUMBER, "Gb/s", nullptr, "write bandwidth per unit of the kind",
                 sim::positive(), {}, by_kind(&KindDefaults::write_gbps, "Gb/s per GPU, rack or cluster")},
          KeyDef{"read_gbps", ValueType::NUMBER, "Gb/s", nullptr, "read bandwidth per unit of the kind",
                 sim::positive(), {}, by_kind(&KindDefaults::read_gbps, "Gb/s per GPU, rack or cluster")},
          KeyDef{"capacity_gb", ValueType::NUMBER, "GB", nullptr, "capacity per unit of the kind",
                 sim::positive(), {}, by_kind(&KindDefaults::capacity_gb, "GB per GPU, rack or cluster")},
          KeyDef{"peer_replicas", ValueType::INTEGER, "", 0,
                 "host_memory only: copies of each GPU's shard kept in other racks' host memory",
                 sim::between(0, 8)},
          KeyDef{"replicate_gbps", ValueType::NUMBER, "Gb/s", nullptr,
                 "host_memory only: per GPU, towards its peers and back from them", sim::positive(), {},
                 by_kind(&KindDefaults::replicate_gbps, "Gb/s per GPU")},
      }};
  return table;
}
// clang-format on

StorageSpec decode_storage(const sim::Node& n) {
  StorageSpec s;
  s.rack_uplink_gbps = n.number("rack_uplink_gbps");
  s.converged = n.string("network") == "converged";
  std::set<std::string> names;
  for (const sim::Node& t : n.objects("tiers", tier_keys())) {
    TierSpec tier;
    tier.name = t.string("name");
    if (t.has("name")) {
      if (const std::string problem = sim::name_problem(tier.name); !problem.empty())
        t.problem("name", problem);
      else if (!names.insert(tier.name).second)
        t.problem("name", "duplicate tier name");
    }
    const std::string kind = t.string("kind");
    const KindDefaults* d = &KINDS[0];
    for (const auto& k : KINDS)
      if (k.word == kind) d = &k;
    tier.kind = d->kind;
    tier.write_gbps = t.optional_number("write_gbps").value_or(d->write_gbps);
    tier.read_gbps = t.optional_number("read_gbps").value_or(d->read_gbps);
    tier.capacity_gb = t.optional_number("capacity_gb").value_or(d->capacity_gb);
    tier.peer_replicas = t.int32("peer_replicas");
    tier.replicate_gbps = t.optional_number("replicate_gbps").value_or(d->replicate_gbps);
    if (tier.kind != TierKind::HOST_MEMORY) {
      if (t.has("peer_replicas") && tier.peer_replicas > 0) t.problem("peer_replicas", "is for host_memory tiers only");
      if (t.has("replicate_gbps")) t.problem("replicate_gbps", "is for host_memory tiers only");
    }
    s.tiers.push_back(std::move(tier));
  }
  return s;
}

} // namespace dcsim::storage
