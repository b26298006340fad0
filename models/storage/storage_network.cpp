#include "models/storage/storage_network.hpp"

#include "sim/units.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dcsim::storage {

namespace {

/// A duplex link whose host side is a copy's place: `in` towards it (writes), `out` from it (reads).
sim::Platform::DuplexLink add_link(sim::Platform& platform, const std::string& name, double in_gbps,
                                   double out_gbps) {
  const auto link = platform.add_duplex_link(name, sim::gbps_to_bytes_per_s(in_gbps), 0.0);
  platform.set_link_bandwidth(link.down, sim::gbps_to_bytes_per_s(in_gbps));
  platform.set_link_bandwidth(link.up, sim::gbps_to_bytes_per_s(out_gbps));
  return link;
}

bool networked(TierKind kind) {
  return kind == TierKind::RACK_CACHE || kind == TierKind::OBJECT_STORE;
}

} // namespace

StorageNetwork::StorageNetwork(sim::Platform& platform,
                               const std::vector<std::optional<CheckpointPlan>>& plans) {
  first_host_ = platform.host_count();
  jobs_.resize(plans.size());
  for (std::size_t j = 0; j < plans.size(); ++j) {
    if (!plans[j]) continue;
    const CheckpointPlan& p = *plans[j];
    JobNet& net = jobs_[j];
    net.plan = &p;
    const std::string prefix = fmt::format("storage/job{}", j);
    net.host = platform.add_host(prefix);
    const double G = p.gpus, K = p.racks;
    net.uplink =
        platform.add_duplex_link(prefix + "/uplink", sim::gbps_to_bytes_per_s(K * p.uplink_gbps), 0.0);
    for (const TierSpec& t : p.chain) {
      TierHosts th;
      switch (t.kind) {
      case TierKind::HOST_MEMORY:
      case TierKind::LOCAL_NVME:
        th.host = platform.add_host(prefix + "/" + t.name);
        th.link = add_link(platform, prefix + "/" + t.name, G * t.write_gbps, G * t.read_gbps);
        if (t.kind == TierKind::HOST_MEMORY && t.peer_replicas > 0) {
          th.peers_host = platform.add_host(prefix + "/" + t.name + "/peers");
          th.peers = add_link(platform, prefix + "/" + t.name + "/peers", G * t.replicate_gbps,
                              G * t.replicate_gbps);
        }
        break;
      case TierKind::RACK_CACHE:
        th.host = platform.add_host(prefix + "/" + t.name);
        th.link = add_link(platform, prefix + "/" + t.name, K * t.write_gbps, K * t.read_gbps);
        break;
      case TierKind::OBJECT_STORE: {
        auto it = shared_.find(t.name);
        if (it == shared_.end()) {
          TierHosts store;
          store.host = platform.add_host("storage/" + t.name);
          store.link = add_link(platform, "storage/" + t.name, t.write_gbps, t.read_gbps);
          store.in_bps = sim::gbps_to_bytes_per_s(t.write_gbps);
          store.out_bps = sim::gbps_to_bytes_per_s(t.read_gbps);
          it = shared_.emplace(t.name, store).first;
        }
        th = it->second;
        break;
      }
      }
      // Routes, both ways: the job's side first for a write, the tier's first for a read.
      const bool via_uplink = networked(t.kind);
      std::vector<int> write{th.link.down}, read{th.link.up};
      if (via_uplink) {
        write.insert(write.begin(), net.uplink.up);
        read.push_back(net.uplink.down);
      }
      routes_[{net.host, th.host}] = write;
      routes_[{th.host, net.host}] = read;
      if (th.peers_host >= 0) {
        routes_[{net.host, th.peers_host}] = {th.peers.down};
        routes_[{th.peers_host, net.host}] = {th.peers.up};
      }
      net.tiers.push_back(th);
    }
  }
  end_host_ = platform.host_count();
  platform.add_section_router(first_host_, end_host_, [this](int a, int b, std::vector<int>& links, double&) {
    const auto it = routes_.find({a, b});
    if (it == routes_.end())
      throw std::logic_error(fmt::format("StorageNetwork: no route between hosts {} and {}", a, b));
    links.insert(links.end(), it->second.begin(), it->second.end());
  });
}

int StorageNetwork::stages(int job) const {
  const JobNet& net = jobs_.at(static_cast<std::size_t>(job));
  return net.plan ? static_cast<int>(net.plan->chain.size()) : 0;
}

StorageNetwork::Flow StorageNetwork::drain(int job, int stage) const {
  const JobNet& net = jobs_.at(static_cast<std::size_t>(job));
  if (!net.plan || stage < 0 || stage >= stages(job))
    throw std::logic_error("StorageNetwork::drain: no such stage");
  const CheckpointPlan& p = *net.plan;
  const auto s = static_cast<std::size_t>(stage);
  if (stage == 0) { // the snapshot's copies to peers (none: nothing to move)
    const TierSpec& t = p.chain.front();
    if (t.kind != TierKind::HOST_MEMORY || t.peer_replicas == 0) return {net.host, net.host, 0};
    return {net.host, net.tiers.front().peers_host, t.peer_replicas * p.size_bytes};
  }
  return {net.host, net.tiers[s].host, p.size_bytes};
}

StorageNetwork::Flow StorageNetwork::load(int job, int position, bool node_lost) const {
  const JobNet& net = jobs_.at(static_cast<std::size_t>(job));
  if (!net.plan || position < 0 || position >= stages(job))
    throw std::logic_error("StorageNetwork::load: no such tier");
  const TierHosts& th = net.tiers[static_cast<std::size_t>(position)];
  const int from = node_lost && th.peers_host >= 0 ? th.peers_host : th.host;
  return {from, net.host, net.plan->size_bytes};
}

sim::Platform::DuplexLink StorageNetwork::tier_link(int job, int position) const {
  return jobs_.at(static_cast<std::size_t>(job)).tiers.at(static_cast<std::size_t>(position)).link;
}

std::optional<sim::Platform::DuplexLink> StorageNetwork::store_link(const std::string& name) const {
  const auto it = shared_.find(name);
  if (it == shared_.end()) return std::nullopt;
  return it->second.link;
}

std::pair<double, double> StorageNetwork::store_bandwidth(const std::string& name) const {
  const TierHosts& store = shared_.at(name);
  return {store.in_bps, store.out_bps};
}

sim::Platform::DuplexLink StorageNetwork::peers_link(int job, int position) const {
  return jobs_.at(static_cast<std::size_t>(job)).tiers.at(static_cast<std::size_t>(position)).peers;
}

} // namespace dcsim::storage
