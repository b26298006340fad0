#include "models/storage/fabric_storage.hpp"

#include <algorithm>
#include <utility>

namespace dcsim::storage {

FabricStorage::FabricStorage(fabric::SharedFabric& net, sim::EventQueue& queue,
                             const std::vector<std::optional<CheckpointPlan>>& plans,
                             std::function<std::vector<int>(int job)> gpus, std::function<void()> resolve)
    : net_(&net), queue_(&queue), plans_(&plans), gpus_(std::move(gpus)), resolve_(std::move(resolve)) {}

int FabricStorage::add_sink(double write_bps, double read_bps) {
  sink_bps_.emplace_back(write_bps, read_bps);
  return net_->add_sink(write_bps, read_bps);
}

int FabricStorage::sink_of(int job, int position, bool peers) {
  const CheckpointPlan& plan = *plans_->at(static_cast<std::size_t>(job));
  const TierSpec& tier = plan.chain.at(static_cast<std::size_t>(position));
  if (!peers && tier.kind == TierKind::OBJECT_STORE) {
    if (auto it = stores_.find(tier.name); it != stores_.end()) return it->second;
    const double w = sim::gbps_to_bytes_per_s(tier.write_gbps), r = sim::gbps_to_bytes_per_s(tier.read_gbps);
    store_bps_[tier.name] = {w, r};
    const auto frac = store_frac_.find(tier.name); // changed before any hop reached it
    const double k = frac == store_frac_.end() ? 1.0 : frac->second;
    return stores_[tier.name] = add_sink(w * k, r * k);
  }
  const std::pair<int, int> key{job, peers ? -1 : position};
  if (auto it = job_sinks_.find(key); it != job_sinks_.end()) return it->second;
  const double units = peers ? plan.gpus : plan.racks; // peers: G × replicate; rack_cache: K × bandwidth
  const double w = sim::gbps_to_bytes_per_s(units * (peers ? tier.replicate_gbps : tier.write_gbps));
  const double r = sim::gbps_to_bytes_per_s(units * (peers ? tier.replicate_gbps : tier.read_gbps));
  return job_sinks_[key] = add_sink(w, r);
}

void FabricStorage::hop(int job, int position, bool write, bool peers, double bytes, std::function<void(bool)> done) {
  const int sink = sink_of(job, position, peers);
  const int id = next_id_++;
  std::vector<int> gpus = gpus_(job);
  Flight& f = flights_[id];
  f.job = job;
  f.gpus = static_cast<int>(gpus.size());
  f.sink_bps = write ? sink_bps_[static_cast<std::size_t>(sink)].first : sink_bps_[static_cast<std::size_t>(sink)].second;
  f.left = bytes;
  f.since = queue_->now();
  f.done = std::move(done);
  if (!gpus.empty()) net_->set_storage(id, std::move(gpus), sink, write, job);
  request_resolve();
}

void FabricStorage::request_resolve() {
  if (resolve_due_) return;
  resolve_due_ = true;
  queue_->after(0, [this] {
    resolve_due_ = false;
    resolve_(); // calls retime() after the solve
  });
}

void FabricStorage::retime() {
  const sim::Tick now = queue_->now();
  for (auto& [id, f] : flights_) {
    if (f.failing) continue;
    f.left = std::max(0.0, f.left - f.rate * sim::to_seconds(now - f.since));
    f.since = now;
    const double rate = f.gpus > 0 ? f.gpus * net_->background_rate(id) : f.sink_bps;
    if (rate == f.rate && !f.end.empty()) continue;
    f.rate = rate;
    queue_->cancel(f.end);
    const int key = id;
    if (!(rate > 0)) { // blocked: fails as a flow through a link that is off
      f.failing = true;
      f.end = queue_->after(0, [this, key] { finish(key, false); });
      continue;
    }
    f.end = queue_->after(sim::to_ticks(f.left / rate), [this, key] { finish(key, true); });
  }
}

void FabricStorage::finish(int id, bool ok) {
  auto it = flights_.find(id);
  if (it == flights_.end()) return;
  std::function<void(bool)> done = std::move(it->second.done);
  const bool on_fabric = it->second.gpus > 0;
  flights_.erase(it);
  if (on_fabric) {
    net_->set_storage(id, {}, -1, true, -1);
    request_resolve(); // the jobs it slowed speed up again
  }
  done(ok);
}

void FabricStorage::store_changed(const std::string& name, double bandwidth_frac) {
  const double frac = std::max(0.0, bandwidth_frac);
  store_frac_[name] = frac;
  auto it = stores_.find(name);
  if (it == stores_.end()) return; // no hop reached it yet: its sink will start at this share
  const auto [w, r] = store_bps_.at(name);
  sink_bps_[static_cast<std::size_t>(it->second)] = {w * frac, r * frac};
  net_->set_sink_capacity(it->second, w * frac, r * frac);
  request_resolve();
}

} // namespace dcsim::storage
