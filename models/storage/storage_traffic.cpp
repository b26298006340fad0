#include "models/storage/storage_traffic.hpp"

#include <stdexcept>
#include <utility>

namespace dcsim::storage {

StorageTraffic::StorageTraffic(const StorageNetwork& network, sim::Platform& platform, sim::EventQueue& queue,
                               const std::vector<std::optional<CheckpointPlan>>& plans)
    : network_(&network), platform_(&platform), queue_(&queue), jobs_(plans.size()) {
  for (std::size_t j = 0; j < plans.size(); ++j)
    if (plans[j]) jobs_[j].plan = &*plans[j];
}

void StorageTraffic::move(int j, const StorageNetwork::Flow& f, int position, bool write, bool peers,
                          std::function<void(bool)> done) {
  const TierKind kind = jobs_[static_cast<std::size_t>(j)].plan->chain.at(static_cast<std::size_t>(position)).kind;
  const bool network = peers || kind == TierKind::RACK_CACHE || kind == TierKind::OBJECT_STORE;
  if (hop_ && network) {
    hop_(j, position, write, peers, f.bytes, std::move(done));
    return;
  }
  platform_->transfer(f.src_host, f.dst_host, f.bytes, std::move(done));
}

StorageTraffic::Record* StorageTraffic::find(Job& job, std::uint64_t serial) {
  for (auto& r : job.records)
    if (r.serial == serial) return &r;
  return nullptr;
}

void StorageTraffic::prune(Job& job) {
  // Nothing older than the newest checkpoint durable everywhere matters any more.
  const int all = static_cast<int>(job.plan->chain.size());
  for (std::size_t i = job.records.size(); i-- > 0;) {
    if (job.records[i].stages_done >= all) {
      job.records.erase(job.records.begin(), job.records.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

int StorageTraffic::snapshot(int j, bool durable) {
  Job& job = jobs_.at(static_cast<std::size_t>(j));
  if (!job.plan) throw std::logic_error("StorageTraffic::snapshot: the job has no storage tiers");
  const int all = static_cast<int>(job.plan->chain.size());
  const std::uint64_t serial = job.next_serial++;
  int done = 0; // an asynchronous snapshot is in host memory; its drain begins now
  if (durable || !job.plan->async) {
    // Written through the chain with its closed-form time, except into an object store out of reach:
    // the copy is in the tiers before the first such store (none: -1, not even in the first tier).
    done = all;
    for (int p = 0; p < all; ++p)
      if (down_stores_.count(job.plan->chain[static_cast<std::size_t>(p)].name) > 0) {
        done = p == 0 ? -1 : p;
        break;
      }
  }
  job.records.push_back({serial, done, queue_->now()});
  const bool drains = job.plan->async && !durable;
  if (drains) {
    if (job.draining == 0) {
      start_drain(j, serial);
    } else {
      if (job.waiting != 0) ++job.measured.skipped; // replaced before its drain began
      job.waiting = serial;
    }
  } else {
    job.waiting = 0; // written through: an older snapshot need not drain
  }
  prune(job);
  int at_risk = 0;
  for (const auto& r : job.records)
    at_risk += r.stages_done < all ? 1 : 0;
  return at_risk;
}

void StorageTraffic::start_drain(int j, std::uint64_t serial) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  job.draining = serial;
  run_stage(j, serial, 0);
}

void StorageTraffic::run_stage(int j, std::uint64_t serial, int stage) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  const int all = static_cast<int>(job.plan->chain.size());
  for (; stage < all; ++stage) {
    Record* r = find(job, serial);
    if (!r) break; // lost to a failure: the drain stops
    const StorageNetwork::Flow f = network_->drain(j, stage);
    if (f.bytes > 0) {
      move(j, f, stage, true, stage == 0, [this, j, serial, stage](bool ok) {
        Job& jb = jobs_[static_cast<std::size_t>(j)];
        Record* rec = find(jb, serial);
        if (!ok || !rec) { // a storage link failed (the copy stays where it got), or the checkpoint was lost
          drain_ended(j);
          return;
        }
        rec->stages_done = stage + 1;
        if (stage + 1 < static_cast<int>(jb.plan->chain.size())) {
          run_stage(j, serial, stage + 1);
          return;
        }
        const double took_s = sim::to_seconds(queue_->now() - rec->taken);
        ++jb.measured.drains;
        jb.measured.drain_s_sum += took_s;
        jb.measured.drain_s_max = std::max(jb.measured.drain_s_max, took_s);
        prune(jb);
        drain_ended(j);
      });
      return;
    }
    r->stages_done = stage + 1; // nothing to move at this stage
  }
  drain_ended(j);
}

void StorageTraffic::drain_ended(int j) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  job.draining = 0;
  const std::uint64_t next = std::exchange(job.waiting, 0);
  if (next != 0 && find(job, next)) start_drain(j, next);
}

void StorageTraffic::store_changed(const std::string& name, double bandwidth_frac) {
  const bool down = bandwidth_frac <= 0;
  if (down)
    down_stores_.insert(name);
  else
    down_stores_.erase(name);
  const auto link = network_->store_link(name);
  if (!link) return; // no job's chain reaches it
  platform_->set_link_on(link->up, !down);
  platform_->set_link_on(link->down, !down);
  if (down) return;
  const auto [in_bps, out_bps] = network_->store_bandwidth(name);
  platform_->set_link_bandwidth(link->down, in_bps * bandwidth_frac);
  platform_->set_link_bandwidth(link->up, out_bps * bandwidth_frac);
}

int StorageTraffic::lost(int j, int mode) {
  Job& job = jobs_.at(static_cast<std::size_t>(j));
  // Causes beyond the scenario's modes (a facility's thermal shutdown) keep every copy, as in the plan.
  if (!job.plan || mode < 0 || static_cast<std::size_t>(mode) >= job.plan->need_stages.size()) return 0;
  const int need = job.plan->need_stages[static_cast<std::size_t>(mode)];
  int lost = 0;
  while (!job.records.empty() && job.records.back().stages_done < need) {
    if (job.records.back().serial == job.waiting) job.waiting = 0;
    job.records.pop_back();
    ++lost;
  }
  return lost;
}

void StorageTraffic::load(int j, int mode, std::function<void()> done) {
  Job& job = jobs_.at(static_cast<std::size_t>(j));
  if (!job.plan) throw std::logic_error("StorageTraffic::load: the job has no storage tiers");
  const CheckpointPlan& p = *job.plan;
  const bool known = mode >= 0 && static_cast<std::size_t>(mode) < p.restore_tier.size(); // else: as a planned stop's
  const int position = known ? p.restore_tier[static_cast<std::size_t>(mode)] : p.planned_tier;
  const bool node_lost = known ? p.node_lost[static_cast<std::size_t>(mode)] : true;
  read(j, position, node_lost, queue_->now(), std::move(done));
}

void StorageTraffic::read(int j, int position, bool node_lost, sim::Tick began, std::function<void()> done) {
  const StorageNetwork::Flow f = network_->load(j, position, node_lost);
  const TierSpec& tier = jobs_[static_cast<std::size_t>(j)].plan->chain.at(static_cast<std::size_t>(position));
  const bool peers = node_lost && tier.kind == TierKind::HOST_MEMORY && tier.peer_replicas > 0;
  move(j, f, position, false, peers,
                      [this, j, position, node_lost, began, done = std::move(done)](bool ok) mutable {
                        Job& job = jobs_[static_cast<std::size_t>(j)];
                        if (ok) {
                          ++job.measured.loads;
                          job.measured.load_s_sum += sim::to_seconds(queue_->now() - began);
                          done();
                          return;
                        }
                        // The tier cannot be read: the next one holds the copy too; the last is retried.
                        const int last = static_cast<int>(job.plan->chain.size()) - 1;
                        if (position < last) {
                          read(j, position + 1, node_lost, began, std::move(done));
                          return;
                        }
                        queue_->after(sim::to_ticks(RETRY_S), [this, j, position, node_lost, began,
                                                               done = std::move(done)]() mutable {
                          read(j, position, node_lost, began, std::move(done));
                        });
                      });
}

} // namespace dcsim::storage
