#include "models/storage/checkpoint_plan.hpp"

#include "models/failure/domain_registry.hpp"
#include "models/hardware/layout.hpp"
#include "models/workload/transformer_flops.hpp"
#include "sim/units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::storage {

namespace {

double bytes_per_s(double gbps) { return sim::gbps_to_bytes_per_s(gbps); }

/// How much of the machine a failure mode takes with it, for the copies kept there (its scope word says).
using Loss = failure::Reach;

Loss loss_of(const failure::FailureModeSpec& mode) { return failure::reach_of(mode); }

/// Time of the hop into `tier` (s) for S bytes over G GPUs on K racks, writing or reading.
double hop_s(const TierSpec& tier, double size_bytes, int gpus, int racks, double uplink_gbps, bool write) {
  const double bw = bytes_per_s(write ? tier.write_gbps : tier.read_gbps);
  const double shard = size_bytes / gpus;
  switch (tier.kind) {
  case TierKind::HOST_MEMORY:
  case TierKind::LOCAL_NVME: return shard / bw;
  case TierKind::RACK_CACHE: return size_bytes / (racks * std::min(bw, bytes_per_s(uplink_gbps)));
  case TierKind::OBJECT_STORE: return size_bytes / std::min(bw, racks * bytes_per_s(uplink_gbps));
  }
  return 0;
}

/// Bytes one unit of the tier's kind keeps of one checkpoint (with peers' shards in host memory).
double bytes_per_unit(const TierSpec& tier, double size_bytes, int gpus, int racks) {
  switch (tier.kind) {
  case TierKind::HOST_MEMORY: return size_bytes / gpus * (1 + tier.peer_replicas);
  case TierKind::LOCAL_NVME: return size_bytes / gpus;
  case TierKind::RACK_CACHE: return size_bytes / racks;
  case TierKind::OBJECT_STORE: return size_bytes;
  }
  return 0;
}

std::vector<const TierSpec*> chain_of(const workload::JobSpec& job, const StorageSpec& storage) {
  std::vector<const TierSpec*> chain;
  for (const auto& name : job.checkpoint.tiers) {
    const TierSpec* t = storage.find(name);
    if (!t) throw PlanProblem("tiers", fmt::format("names tier \"{}\", which /storage/tiers does not define", name));
    if (std::find(chain.begin(), chain.end(), t) != chain.end())
      throw PlanProblem("tiers", fmt::format("lists tier \"{}\" twice", name));
    chain.push_back(t);
  }
  return chain;
}

} // namespace

double model_checkpoint_bytes(const workload::ModelJobSpec& model) {
  return workload::total_params(model.model) * CHECKPOINT_BYTES_PER_PARAM;
}

double checkpoint_bytes(const workload::JobSpec& job) {
  if (!job.checkpoint.size_auto) return job.checkpoint.size_gb * BYTES_PER_GB;
  if (!job.model) throw std::logic_error("checkpoint_bytes: size_gb \"auto\" without a model");
  return model_checkpoint_bytes(*job.model);
}

int job_racks(const hardware::Layout& layout, int gpus) {
  const long long domain_gpus = static_cast<long long>(layout.domains_for(gpus)) * layout.domain_gpus();
  return static_cast<int>((domain_gpus + layout.gpus_per_rack() - 1) / layout.gpus_per_rack());
}

bool copy_survives(const TierSpec& tier, const failure::FailureModeSpec& mode) {
  const Loss loss = loss_of(mode);
  switch (tier.kind) {
  case TierKind::HOST_MEMORY: return loss == Loss::NOTHING || (tier.peer_replicas > 0 && loss != Loss::MANY_RACKS);
  case TierKind::LOCAL_NVME: return loss <= Loss::HOST;
  case TierKind::RACK_CACHE: return loss <= Loss::TRAY;
  case TierKind::OBJECT_STORE: return true;
  }
  return false;
}

namespace {
/// Each hop's write time, host memory's copy to its peers (returned, per tier), the lags after the blocking
/// write (the snapshot's peers, then each later hop in turn), the blocking write and the durable time.
std::vector<double> plan_writes(CheckpointPlan& p, const std::vector<const TierSpec*>& chain, double uplink_gbps) {
  std::vector<double> replicate(chain.size(), 0.0); // host_memory's copy to its peers, after its own hop
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const TierSpec& t = *chain[i];
    p.hop_s.push_back(hop_s(t, p.size_bytes, p.gpus, p.racks, uplink_gbps, true));
    if (t.kind == TierKind::HOST_MEMORY && t.peer_replicas > 0)
      replicate[i] = t.peer_replicas * (p.size_bytes / p.gpus) / bytes_per_s(t.replicate_gbps);
  }
  // Lags after the blocking write: the snapshot's peers, then each later hop in turn.
  double t_end = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    t_end += (i == 0 ? 0.0 : p.hop_s[i]) + replicate[i];
    p.lag_s.push_back(t_end);
  }
  p.write_s = p.async ? p.hop_s[0] : p.hop_s[0] + p.lag_s.back();
  p.durable_s = p.hop_s[0] + p.lag_s.back();
  if (!p.async) std::fill(p.lag_s.begin(), p.lag_s.end(), 0.0); // durable everywhere once training resumes
  return replicate;
}
} // namespace

CheckpointPlan plan_checkpoint(const workload::JobSpec& job, double size_bytes, const StorageSpec& storage,
                               const std::vector<failure::FailureModeSpec>& modes, int racks) {
  const std::vector<const TierSpec*> chain = chain_of(job, storage);
  if (chain.empty()) throw PlanProblem("tiers", "must list at least one tier");
  const bool async = job.checkpoint.async;
  if (async && chain.front()->kind != TierKind::HOST_MEMORY)
    throw PlanProblem("async", fmt::format("needs a host_memory tier first (the snapshot); tiers starts with \"{}\" ({})",
                                           chain.front()->name, tier_kind_name(chain.front()->kind)));
  const int gpus = job.gpus;
  for (const TierSpec* t : chain) {
    const double per_unit = bytes_per_unit(*t, size_bytes, gpus, racks);
    if (per_unit > t->capacity_gb * BYTES_PER_GB)
      throw PlanProblem("tiers", fmt::format("tier \"{}\" keeps {:.4g} GB of this checkpoint per unit, more than its "
                                             "capacity_gb ({})", t->name, per_unit / BYTES_PER_GB, t->capacity_gb));
  }
  CheckpointPlan p;
  p.size_bytes = size_bytes;
  for (const TierSpec* t : chain)
    p.chain.push_back(*t);
  p.async = async;
  p.gpus = gpus;
  p.racks = racks;
  p.uplink_gbps = storage.rack_uplink_gbps;
  const std::vector<double> replicate = plan_writes(p, chain, storage.rack_uplink_gbps);

  auto restore_from = [&](std::size_t i, bool node_lost) {
    const TierSpec& t = *chain[i];
    if (t.kind == TierKind::HOST_MEMORY && node_lost) return (size_bytes / gpus) / bytes_per_s(t.replicate_gbps);
    return hop_s(t, size_bytes, gpus, racks, storage.rack_uplink_gbps, false);
  };
  for (const auto& mode : modes) {
    std::size_t i = 0;
    while (i < chain.size() && !copy_survives(*chain[i], mode))
      ++i;
    if (i == chain.size())
      throw PlanProblem("tiers", fmt::format("keeps no copy that survives failure mode \"{}\" (scope {}): end the chain "
                                             "with a tier that does (an object_store survives every failure)",
                                             mode.name, mode.scope_name));
    p.restore_tier.push_back(static_cast<int>(i));
    // With peers a host_memory copy survives a node's loss: the lost node's shard comes back from a peer.
    p.load_s.push_back(restore_from(i, loss_of(mode) != Loss::NOTHING));
    // The copy must have reached the tier (and its peers) to count; a host_memory copy without peers
    // survives only failures that lose nothing, for which the snapshot itself is enough.
    const bool peers_needed = chain[i]->kind == TierKind::HOST_MEMORY && loss_of(mode) != Loss::NOTHING;
    p.need_stages.push_back(i == 0 && !peers_needed ? 0 : static_cast<int>(i) + 1);
    p.node_lost.push_back(loss_of(mode) != Loss::NOTHING);
    p.loss_window_s.push_back(async ? (i == 0 ? (peers_needed ? replicate[0] : 0.0) : p.lag_s[i]) : 0.0);
  }
  // Times must fit the simulation's clock, as every duration of a scenario does.
  double longest = std::max({p.durable_s, p.load_s.empty() ? 0.0 : *std::max_element(p.load_s.begin(), p.load_s.end())});
  longest = std::max(longest, restore_from(0, true));
  if (!(longest <= sim::MAX_DURATION_S))
    throw PlanProblem("size_gb", fmt::format("makes a checkpoint write or restore last {:.4g} s, beyond dcsim's limit on "
                                             "durations (10^6 h): check size_gb and the tiers' bandwidths",
                                             longest));
  // A planned stop may move the job: it restores from the first tier that survives a node's loss.
  failure::FailureModeSpec node_loss;
  node_loss.domain = failure::Domain::HARDWARE;
  node_loss.unit_kind = failure::unit_kind_of(hardware::Scope::NODE);
  std::size_t planned = 0;
  while (planned + 1 < chain.size() && !copy_survives(*chain[planned], node_loss))
    ++planned;
  p.load_planned_s = restore_from(planned, true);
  p.planned_tier = static_cast<int>(planned);
  return p;
}

} // namespace dcsim::storage
