#include "models/fabric/shared_fabric.hpp"

#include "models/fabric/ecmp_hash.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <set>

namespace dcsim::fabric {

namespace {
std::size_t at(int i) { return static_cast<std::size_t>(i); }

/// Union-find over entry ids.
struct Unions {
  std::map<int, int> parent;
  int find(int x) {
    auto it = parent.find(x);
    if (it == parent.end()) return parent[x] = x;
    if (it->second == x) return x;
    return it->second = find(it->second);
  }
  void join(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};
} // namespace

SharedFabric::SharedFabric(const FabricPlatform& fabric, PhaseOverlap overlap, std::uint64_t seed, SharedRouting routing)
    : fabric_(&fabric), overlap_(overlap), seed_(seed), routing_(routing) {
  const ClosPlan& plan = fabric.graph().plan();
  for (int l = 0; l < plan.leaves(); ++l)
    for (int half : {fabric.leaf_bundle_duplex(l).up, fabric.leaf_bundle_duplex(l).down})
      if (half >= 0) bundle_of_link_[half] = l;
  for (int c = 0; c < plan.pods(); ++c)
    for (int half : {fabric.pod_bundle_duplex(c).up, fabric.pod_bundle_duplex(c).down})
      if (half >= 0) bundle_of_link_[half] = plan.leaves() + c;
}

std::vector<int> SharedFabric::touched_bundles(const Entry& e) const {
  const ClosPlan& plan = fabric_->graph().plan();
  if (e.sink >= 0) { // storage: its leaves' and pods' bundles on routes, and its sink
    std::set<int> out; // not its sink: hops on one sink split it evenly (add_sink), without a solve
    for (int g : e.traffic.rank_gpus) {
      const int leaf = plan.leaf_of(g), pod = plan.pod_of_leaf(leaf);
      if (routing_.ecmp_hash || fabric_->leaf_bundle_in_routes(leaf)) out.insert(leaf);
      if (fabric_->pod_bundle_in_routes(pod)) out.insert(plan.leaves() + pod);
    }
    return {out.begin(), out.end()};
  }
  std::vector<int> gpus = e.traffic.rank_gpus;
  for (const auto& [a, b] : e.background) {
    gpus.push_back(a);
    gpus.push_back(b);
  }
  std::set<int> leaves, pods;
  for (int g : gpus) {
    const int leaf = plan.leaf_of(g);
    leaves.insert(leaf);
    pods.insert(plan.pod_of_leaf(leaf));
  }
  bool may = false; // cheap test first: GPUs on several leaves (pods) under a bundle that can saturate
  if (leaves.size() > 1)
    for (int l : leaves)
      may = may || routing_.ecmp_hash || fabric_->leaf_bundle_in_routes(l);
  if (pods.size() > 1)
    for (int c : pods)
      may = may || fabric_->pod_bundle_in_routes(c);
  if (!may) return {};
  std::vector<CollectiveFlows> cfs;
  if (e.is_background) {
    CollectiveFlows cf;
    for (const auto& [a, b] : e.background)
      cf.flows.push_back({a, b, PROBE_BYTES});
    cfs.push_back(std::move(cf));
  } else {
    for (const TrafficPhase& ph : e.traffic.phases)
      cfs.push_back(collective_flows(*fabric_, ph.pattern, ph.ranks, ph.stride, e.traffic.rank_gpus, true));
  }
  std::set<int> out;
  std::vector<int> links;
  for (const CollectiveFlows& cf : cfs)
    for (const auto& f : cf.flows) {
      const int la = plan.leaf_of(f.src_host), lb = plan.leaf_of(f.dst_host);
      if (routing_.ecmp_hash && la != lb) { // every uplink can collide
        out.insert(la);
        out.insert(lb);
      }
      links.clear();
      double latency = 0;
      if (!fabric_->route(f.src_host, f.dst_host, links, latency)) continue;
      for (int l : links)
        if (auto it = bundle_of_link_.find(l); it != bundle_of_link_.end()) out.insert(it->second);
    }
  return {out.begin(), out.end()};
}

void SharedFabric::set_job(int job, JobTraffic traffic) {
  auto it = entries_.find(job);
  if (it != entries_.end() && it->second.traffic.key == traffic.key) return;
  Entry& e = entries_[job];
  e.traffic = std::move(traffic);
  e.bundles_known = false;
  e.factors.assign(e.traffic.phases.size(), 1.0);
  dirty_.push_back(job);
}

void SharedFabric::remove_job(int job) {
  if (entries_.erase(job) > 0) dirty_.push_back(job);
}

void SharedFabric::set_background(int id, std::vector<std::pair<int, int>> pairs) {
  const int key = -1 - id;
  if (pairs.empty()) {
    remove_job(key);
    return;
  }
  Entry& e = entries_[key];
  e.is_background = true;
  e.background = std::move(pairs);
  e.bundles_known = false;
  dirty_.push_back(key);
}

int SharedFabric::add_sink(double write_bytes_per_s, double read_bytes_per_s) {
  sinks_.emplace_back(write_bytes_per_s, read_bytes_per_s);
  sink_users_.push_back(0);
  return static_cast<int>(sinks_.size()) - 1;
}

void SharedFabric::sink_changed(int sink, int delta) {
  sink_users_.at(static_cast<std::size_t>(sink)) += delta;
  for (const auto& [id, e] : entries_) // their share C/m changed
    if (e.sink == sink) dirty_.push_back(id);
}

void SharedFabric::set_sink_capacity(int sink, double write_bytes_per_s, double read_bytes_per_s) {
  sinks_.at(static_cast<std::size_t>(sink)) = {write_bytes_per_s, read_bytes_per_s};
  for (const auto& [id, e] : entries_)
    if (e.sink == sink) dirty_.push_back(id);
}

void SharedFabric::set_storage(int id, std::vector<int> gpus, int sink, bool write, int owner) {
  const int key = -1 - id;
  if (gpus.empty()) {
    if (auto it = entries_.find(key); it != entries_.end() && it->second.sink >= 0) sink_changed(it->second.sink, -1);
    remove_job(key);
    return;
  }
  Entry& e = entries_[key];
  if (e.sink != sink) {
    if (e.sink >= 0) sink_changed(e.sink, -1);
    sink_changed(sink, +1);
  }
  e.is_background = true;
  e.traffic.rank_gpus = std::move(gpus);
  e.bundles_known = false;
  e.sink = sink;
  e.write = write;
  e.owner = owner;
  e.rate = 0;
  dirty_.push_back(key);
}

double SharedFabric::background_rate(int id) const {
  auto it = entries_.find(-1 - id);
  return it == entries_.end() ? 0.0 : it->second.rate;
}

const std::vector<double>& SharedFabric::factors(int job) const {
  auto it = entries_.find(job);
  return it == entries_.end() ? ones_ : it->second.factors;
}

int SharedFabric::component_size(int job) const {
  auto it = entries_.find(job);
  if (it == entries_.end() || it->second.component == NO_COMPONENT) return 1;
  return static_cast<int>(members_.at(it->second.component).size());
}

std::vector<int> SharedFabric::resolve() {
  std::vector<int> changed;
  if (dirty_.empty() && !all_dirty_) return changed;
  // Components from scratch, from each entry's touched bundles (found again only for an entry whose
  // traffic changed, or for every entry once the fabric's capacities changed).
  Unions u;
  std::map<int, int> bundle_owner;
  for (auto& [id, e] : entries_) {
    if (!e.bundles_known) {
      e.bundles = touched_bundles(e);
      e.bundles_known = true;
    }
    u.find(id);
    for (int b : e.bundles) {
      auto [it, fresh] = bundle_owner.emplace(b, id);
      if (!fresh) u.join(it->second, id);
    }
    if (e.owner >= 0 && entries_.contains(e.owner)) u.join(id, e.owner); // its owner's access links
  }
  std::map<int, std::vector<int>> members;
  for (auto& [id, e] : entries_)
    members[u.find(id)].push_back(id);
  const std::set<int> dirty(dirty_.begin(), dirty_.end());
  for (auto& [root, list] : members) {
    bool redo = all_dirty_;
    for (int id : list) {
      Entry& e = entries_.at(id);
      redo = redo || dirty.contains(id) || e.component != root;
      auto old = members_.find(e.component); // a member left or joined
      redo = redo || old == members_.end() || old->second != list;
    }
    for (int id : list)
      entries_.at(id).component = root;
    if (!redo) continue;
    if (list.size() == 1 && entries_.at(list[0]).sink < 0 &&
        (!routing_.ecmp_hash || entries_.at(list[0]).bundles.empty())) { // alone: 1, no solve
      Entry& e = entries_.at(list[0]);
      if (std::any_of(e.factors.begin(), e.factors.end(), [](double f) { return f != 1.0; })) {
        std::fill(e.factors.begin(), e.factors.end(), 1.0);
        if (list[0] >= 0) changed.push_back(list[0]);
      }
      continue;
    }
    solve(list, changed);
  }
  members_ = std::move(members);
  dirty_.clear();
  all_dirty_ = false;
  std::sort(changed.begin(), changed.end());
  return changed;
}

namespace {
/// Key of single uplink j of leaf `leaf` in plane `plane`, direction up (0) or down (1): negative.
std::int64_t uplink_key(int leaf, int plane, int j, int down) {
  return -1 - ((static_cast<std::int64_t>(leaf) * 256 + plane) * 65536 + j) * 2 - down;
}
} // namespace

namespace {
/// Key of sink `sink`'s link, write (0) or read (1): below every uplink key.
constexpr std::int64_t SINK_KEY_BASE = std::numeric_limits<std::int64_t>::min() / 4;
constexpr std::int64_t SINK_KEY_END = SINK_KEY_BASE + (std::int64_t{1} << 40);
/// Key of background `id`'s share of its sink, write (0) or read (1).
std::int64_t sink_key(int id, bool read) { return SINK_KEY_BASE + static_cast<std::int64_t>(id) * 2 + (read ? 1 : 0); }
} // namespace

double SharedFabric::capacity_of(std::int64_t key) const {
  if (key < SINK_KEY_END) { // background id's share of its sink: C / m
    const Entry& e = entries_.at(-1 - static_cast<int>((key - SINK_KEY_BASE) / 2));
    const auto& [w, r] = sinks_.at(static_cast<std::size_t>(e.sink));
    return ((key - SINK_KEY_BASE) % 2 == 0 ? w : r) / std::max(1, sink_users_.at(static_cast<std::size_t>(e.sink)));
  }
  if (key < 0) return fabric_->graph().plan().spec().port_gbps * 1e9 / 8; // one uplink port
  const int l = static_cast<int>(key);
  const double bw = fabric_->link_capacity(l); // 0 when off
  return bundle_of_link_.contains(l) ? bw : bw * routing_.nic_efficiency_frac; // else an access link
}

PhaseFlows SharedFabric::phase_flows(const CollectiveFlows& cf, std::map<std::int64_t, int>& link_index,
                                     bool hashed) const {
  const ClosPlan& plan = fabric_->graph().plan();
  const FabricState& state = fabric_->state();
  PhaseFlows p;
  p.member_weight = cf.weight;
  std::vector<int> links;
  auto index = [&](std::int64_t key) { return link_index.emplace(key, static_cast<int>(link_index.size())).first->second; };
  for (std::size_t f = 0; f < cf.flows.size(); ++f) {
    links.clear();
    double latency = 0;
    const int a = cf.flows[f].src_host, b = cf.flows[f].dst_host;
    if (!fabric_->route(a, b, links, latency)) continue;
    const int la = plan.leaf_of(a), lb = plan.leaf_of(b);
    if (!hashed || la == lb) {
      MaxMinFlow flow;
      for (int l : links)
        flow.links.push_back(index(l));
      p.flows.push_back(std::move(flow));
      p.bytes.push_back(cf.flows[f].bytes);
      p.member.push_back(cf.sender[f]);
      continue;
    }
    // Hashed: the leaf bundles leave the route; each subflow takes one live uplink and one live downlink
    // of a plane where both leaves have one.
    const int up = fabric_->leaf_bundle_duplex(la).up, down = fabric_->leaf_bundle_duplex(lb).down;
    std::erase_if(links, [&](int l) { return l == up || l == down; });
    std::vector<std::vector<int>> live_up, live_down;
    std::vector<int> planes;
    for (int pl = 0; pl < plan.planes(); ++pl) {
      std::vector<int> u, d;
      for (int j = 0; j < plan.leaf_up_ports(); ++j) {
        if (state.leaf_uplink_up(pl, la, j)) u.push_back(j);
        if (state.leaf_uplink_up(pl, lb, j)) d.push_back(j);
      }
      if (u.empty() || d.empty()) continue;
      planes.push_back(pl);
      live_up.push_back(std::move(u));
      live_down.push_back(std::move(d));
    }
    if (planes.empty()) continue; // no path left: blocked, as on the platform
    const int s = std::max(1, routing_.subflows);
    for (int i = 0; i < s; ++i) {
      MaxMinFlow flow;
      for (int l : links)
        flow.links.push_back(index(l));
      const std::size_t k = static_cast<std::size_t>(i) % planes.size();
      const auto& u = live_up[k];
      const auto& d = live_down[k];
      const int ju = u[ecmp_hash(routing_.seed, a, b, i, 0) % u.size()];
      const int jd = d[ecmp_hash(routing_.seed, a, b, i, 1) % d.size()];
      flow.links.push_back(index(uplink_key(la, planes[k], ju, 0)));
      flow.links.push_back(index(uplink_key(lb, planes[k], jd, 1)));
      p.flows.push_back(std::move(flow));
      p.bytes.push_back(cf.flows[f].bytes / s);
      p.member.push_back(cf.sender[f]);
    }
  }
  return p;
}

PhaseFlows SharedFabric::storage_flows(int id, const Entry& e, std::map<std::int64_t, int>& link_index) const {
  const ClosPlan& plan = fabric_->graph().plan();
  const FabricState& state = fabric_->state();
  auto index = [&](std::int64_t key) { return link_index.emplace(key, static_cast<int>(link_index.size())).first->second; };
  auto half = [&](const sim::Platform::DuplexLink& d) { return e.write ? d.up : d.down; };
  const int s = routing_.ecmp_hash ? std::max(1, routing_.subflows) : 1;
  PhaseFlows p;
  for (std::size_t m = 0; m < e.traffic.rank_gpus.size(); ++m) {
    const int g = e.traffic.rank_gpus[m], leaf = plan.leaf_of(g), pod = plan.pod_of_leaf(leaf);
    std::vector<int> common{index(half(fabric_->access_duplex(g))), index(sink_key(id, !e.write))};
    if (fabric_->pod_bundle_in_routes(pod)) common.push_back(index(half(fabric_->pod_bundle_duplex(pod))));
    p.member_weight.push_back(1.0);
    std::vector<std::pair<int, std::vector<int>>> live; // hashed: planes with a live uplink, and those
    for (int pl = 0; routing_.ecmp_hash && pl < plan.planes(); ++pl) {
      std::vector<int> u;
      for (int j = 0; j < plan.leaf_up_ports(); ++j)
        if (state.leaf_uplink_up(pl, leaf, j)) u.push_back(j);
      if (!u.empty()) live.emplace_back(pl, std::move(u));
    }
    const int subflows = live.empty() ? 1 : s;
    for (int i = 0; i < subflows; ++i) {
      MaxMinFlow flow;
      flow.links = common;
      if (!live.empty()) { // one hashed single uplink (write) or downlink (read) of the leaf
        const auto& [plane, u] = live[static_cast<std::size_t>(i) % live.size()];
        const int j = u[ecmp_hash(routing_.seed, g, -1 - e.sink, i, e.write ? 0 : 1) % u.size()];
        flow.links.push_back(index(uplink_key(leaf, plane, j, e.write ? 0 : 1)));
      } else if (fabric_->leaf_bundle_in_routes(leaf)) {
        flow.links.push_back(index(half(fabric_->leaf_bundle_duplex(leaf))));
      }
      p.flows.push_back(std::move(flow));
      p.bytes.push_back(PROBE_BYTES / subflows);
      p.member.push_back(static_cast<int>(m));
    }
  }
  return p;
}

void SharedFabric::build_phases(const std::vector<int>& component, std::map<std::int64_t, int>& link_index,
                                std::vector<PhaseJob>& jobs, std::vector<PhaseJob>& ideal, std::vector<int>& ids) const {
  for (int id : component) {
    const Entry& e = entries_.at(id);
    PhaseJob pj, pi;
    std::vector<CollectiveFlows> cfs;
    if (e.sink >= 0) { // storage: one phase in flight throughout, the same hashed or not
      pj.phases.push_back(storage_flows(-1 - id, e, link_index));
      pi.phases.push_back(pj.phases.back());
      pj.phase_alone_s.push_back(pj.phases.back().flows.empty() ? 0.0 : 1.0);
      pi.phase_alone_s.push_back(pj.phase_alone_s.back());
    } else if (e.is_background) { // one phase in flight throughout
      CollectiveFlows cf;
      for (const auto& [a, b] : e.background) {
        cf.flows.push_back({a, b, PROBE_BYTES});
        cf.sender.push_back(static_cast<int>(cf.weight.size()));
        cf.weight.push_back(1.0);
      }
      cfs.push_back(std::move(cf));
    } else {
      pj.local_s = pi.local_s = e.traffic.local_s;
      for (const TrafficPhase& ph : e.traffic.phases)
        cfs.push_back(collective_flows(*fabric_, ph.pattern, ph.ranks, ph.stride, e.traffic.rank_gpus, true));
    }
    for (std::size_t k = 0; k < cfs.size(); ++k) {
      pj.phases.push_back(phase_flows(cfs[k], link_index, routing_.ecmp_hash));
      pi.phases.push_back(routing_.ecmp_hash ? phase_flows(cfs[k], link_index, false) : PhaseFlows{});
      const double alone = e.is_background ? 1.0 : e.traffic.phases[k].alone_s;
      pj.phase_alone_s.push_back(pj.phases.back().flows.empty() ? 0.0 : alone);
      pi.phase_alone_s.push_back(pj.phase_alone_s.back());
    }
    if (pj.cycle_s() <= 0) continue; // nothing on the fabric
    pj.identity = member_signature(id);
    jobs.push_back(std::move(pj));
    ideal.push_back(std::move(pi));
    ids.push_back(id);
  }
}

std::vector<std::uint64_t> SharedFabric::member_signature(int id) const {
  auto mix = [](std::uint64_t h, std::uint64_t v) { return (h ^ v) * 1099511628211ULL; }; // FNV-1a
  const Entry& e = entries_.at(id);
  std::uint64_t h = 1469598103934665603ULL;
  for (int g : e.traffic.rank_gpus)
    h = mix(h, static_cast<std::uint64_t>(g));
  for (const auto& [a, b] : e.background)
    h = mix(mix(h, static_cast<std::uint64_t>(a)), static_cast<std::uint64_t>(b));
  std::vector<std::uint64_t> key{static_cast<std::uint64_t>(e.is_background), e.traffic.key, h};
  if (e.sink >= 0)
    key.insert(key.end(), {static_cast<std::uint64_t>(e.write), std::bit_cast<std::uint64_t>(capacity_of(sink_key(-1 - id, !e.write)))});
  return key;
}

std::vector<std::uint64_t> SharedFabric::signature(const std::vector<int>& component) const {
  std::vector<std::uint64_t> key;
  if (overlap_ == PhaseOverlap::RANDOM) // the offsets' seed follows the ids
    for (int id : component)
      key.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(id)));
  for (int id : component) {
    const std::vector<std::uint64_t> mine = member_signature(id);
    key.insert(key.end(), mine.begin(), mine.end());
  }
  return key;
}

void SharedFabric::solve(const std::vector<int>& component, std::vector<int>& changed) {
  ++solves_;
  std::vector<std::uint64_t> key = signature(component);
  auto hit = cache_.find(key);
  if (hit == cache_.end()) {
    if (cache_.size() >= MAX_CACHED) cache_.clear();
    hit = cache_.emplace(std::move(key), compute(component)).first;
  } else {
    ++cache_hits_;
  }
  for (std::size_t i = 0; i < component.size(); ++i) {
    Entry& e = entries_.at(component[i]);
    auto [f, rate] = hit->second[i];
    e.rate = rate;
    f.resize(e.factors.size(), 1.0);
    if (f != e.factors) {
      e.factors = std::move(f);
      if (component[i] >= 0) changed.push_back(component[i]);
    }
  }
}

std::vector<std::pair<std::vector<double>, double>> SharedFabric::compute(const std::vector<int>& component) const {
  std::map<std::int64_t, int> link_index; // platform link (≥ 0) or single uplink (< 0) -> the component's
  std::vector<PhaseJob> jobs, ideal;
  std::vector<int> ids;
  build_phases(component, link_index, jobs, ideal, ids);
  std::vector<double> capacity(link_index.size(), 0.0);
  for (const auto& [key, local] : link_index)
    capacity[at(local)] = capacity_of(key);
  const PhaseSharing sharing(std::move(capacity));
  // Hashed routes: each phase alone is τ(hashed)/τ(ideal) slower than the probe's (ideal) figure.
  std::vector<std::vector<double>> hashed(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (std::size_t k = 0; k < jobs[j].phases.size(); ++k) {
      double r = 1.0;
      if (routing_.ecmp_hash && jobs[j].phase_alone_s[k] > 0) {
        const double t_hash = sharing.taus({&jobs[j].phases[k]})[0], t_ideal = sharing.taus({&ideal[j].phases[k]})[0];
        if (t_hash > 0 && t_ideal > 0) r = t_hash / t_ideal;
      }
      jobs[j].phase_alone_s[k] *= r;
      hashed[j].push_back(r);
    }
  const SharingResult played = jobs.size() > 1 ? sharing.share(jobs, overlap_, seed_ ^ static_cast<std::uint64_t>(ids[0] + 1), &pairs_)
                                               : SharingResult{};
  std::vector<std::pair<std::vector<double>, double>> out; // per member: factors, rate
  for (int id : component) {
    const Entry& e = entries_.at(id);
    std::vector<double> f(e.factors.size(), 1.0);
    double rate = 0;
    const auto pos = std::find(ids.begin(), ids.end(), id);
    const auto j = at(static_cast<int>(pos - ids.begin()));
    if (pos != ids.end() && e.is_background) { // r = PROBE_BYTES / (τ_alone · F)
      const double tau = sharing.taus({&jobs[j].phases[0]})[0];
      const double factor = jobs.size() > 1 ? std::max(1.0, played.phase_factor[j][0]) : 1.0;
      rate = tau > 0 ? PROBE_BYTES / (tau * factor) : 0.0;
    }
    if (pos != ids.end() && !e.is_background) {
      for (std::size_t k = 0; k < f.size() && k < hashed[j].size(); ++k)
        f[k] = hashed[j][k] * (jobs.size() > 1 ? played.phase_factor[j][k] : 1.0);
      for (double& x : f) // not slower than alone; the play's rounding (1e-12) is not a slowdown
        x = x < 1 + 1e-9 ? 1.0 : x;
    }
    out.emplace_back(std::move(f), rate);
  }
  return out;
}

} // namespace dcsim::fabric
