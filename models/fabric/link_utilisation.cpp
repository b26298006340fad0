#include "models/fabric/link_utilisation.hpp"

#include "models/fabric/collective_flows.hpp"
#include "models/fabric/phase_play.hpp"

#include <algorithm>
#include <cmath>

namespace dcsim::fabric {

namespace {
constexpr double RESOLUTION = 1e6; // quantiles resolve utilisation to 1e-6
std::size_t at(int i) { return static_cast<std::size_t>(i); }
std::int64_t bin_of(double v) { return std::llround(v * RESOLUTION); }
double resolved(double v) { return static_cast<double>(bin_of(v)) / RESOLUTION; }

/// The lower q-quantile of `zeros` zeros followed by the sorted `values`.
double sorted_quantile(const std::vector<double>& values, int zeros, double q) {
  const auto n = static_cast<double>(values.size()) + zeros;
  if (n <= 0) return 0.0;
  const auto rank = static_cast<long long>(std::max(1.0, std::ceil(q * n - 1e-9))); // 1-based
  if (rank <= zeros) return 0.0;
  return resolved(values[static_cast<std::size_t>(std::min<long long>(rank - zeros, static_cast<long long>(values.size())) - 1)]);
}
} // namespace

std::string_view link_tier_name(LinkTier tier) {
  switch (tier) {
  case LinkTier::ACCESS: return "access";
  case LinkTier::LEAF_SPINE: return "leaf_spine";
  case LinkTier::SPINE_CORE: return "spine_core";
  }
  return "?";
}

void WeightedQuantiles::add(double value, double weight) {
  if (!(weight > 0)) return;
  bins_[bin_of(value)] += weight;
  weight_ += weight;
  sum_ += value * weight;
  max_ = std::max(max_, value);
}

double WeightedQuantiles::quantile(double q) const {
  if (!(weight_ > 0)) return 0.0;
  const double target = q * weight_ * (1 - 1e-12);
  double cum = 0;
  for (const auto& [bin, w] : bins_) {
    cum += w;
    if (cum >= target) return static_cast<double>(bin) / RESOLUTION;
  }
  return static_cast<double>(bins_.rbegin()->first) / RESOLUTION;
}

LinkUtilisation::LinkUtilisation(const FabricPlatform& fabric, double nic_efficiency_frac)
    : fabric_(&fabric), nic_efficiency_(nic_efficiency_frac) {
  const ClosPlan& plan = fabric.graph().plan();
  int links = 0;
  for (int g = 0; g < plan.gpus(); ++g) {
    const auto d = fabric.access_duplex(g);
    for (int l : {d.up, d.down})
      if (l >= 0) {
        tier_links_[0].push_back(l);
        links = std::max(links, l + 1);
      }
  }
  for (int l = 0; l < plan.leaves(); ++l)
    for (int half : {fabric.leaf_bundle_duplex(l).up, fabric.leaf_bundle_duplex(l).down})
      if (half >= 0) {
        tier_links_[1].push_back(half);
        links = std::max(links, half + 1);
      }
  for (int c = 0; c < plan.pods(); ++c)
    for (int half : {fabric.pod_bundle_duplex(c).up, fabric.pod_bundle_duplex(c).down})
      if (half >= 0) {
        tier_links_[2].push_back(half);
        links = std::max(links, half + 1);
      }
  is_access_.assign(at(links), 0);
  for (int l : tier_links_[0])
    is_access_[at(l)] = 1;
  load_.assign(at(links), 0.0);
  util_.assign(at(links), 0.0);
  in_routes_ = bundles_in_routes();
}

double LinkUtilisation::capacity(int link) const { return fabric_->link_capacity(link); }

bool LinkUtilisation::path(int a, int b, std::vector<int>& links) const {
  const ClosPlan& plan = fabric_->graph().plan();
  links.push_back(fabric_->access_duplex(a).up);
  const int la = plan.leaf_of(a), lb = plan.leaf_of(b);
  if (la != lb) {
    const int pa = plan.pod_of_leaf(la), pb = plan.pod_of_leaf(lb);
    if (const int up = fabric_->leaf_bundle_duplex(la).up; up >= 0) links.push_back(up);
    if (pa != pb) {
      if (const int up = fabric_->pod_bundle_duplex(pa).up; up >= 0) links.push_back(up);
      if (const int down = fabric_->pod_bundle_duplex(pb).down; down >= 0) links.push_back(down);
    }
    if (const int down = fabric_->leaf_bundle_duplex(lb).down; down >= 0) links.push_back(down);
  }
  links.push_back(fabric_->access_duplex(b).down);
  return true;
}

void LinkUtilisation::solve_alone(Job& job) const {
  // Each phase alone over the platform's routes (the links that can bind), its load over the physical
  // path (every tier crossed).
  std::map<int, int> index; // platform link -> the solve's
  std::vector<PhaseFlows> phases;
  std::vector<std::vector<std::vector<int>>> paths; // [phase][flow] physical links
  std::vector<int> route;
  for (const TrafficPhase& ph : job.traffic.phases) {
    phases.emplace_back();
    paths.emplace_back();
    if (!(ph.alone_s > 0)) continue;
    const CollectiveFlows cf = collective_flows(*fabric_, ph.pattern, ph.ranks, ph.stride, job.traffic.rank_gpus, true);
    PhaseFlows& p = phases.back();
    p.member_weight = cf.weight;
    for (std::size_t f = 0; f < cf.flows.size(); ++f) {
      route.clear();
      double latency = 0;
      const int a = cf.flows[f].src_host, b = cf.flows[f].dst_host;
      if (!fabric_->route(a, b, route, latency)) continue;
      MaxMinFlow flow;
      for (int l : route)
        flow.links.push_back(index.emplace(l, static_cast<int>(index.size())).first->second);
      p.flows.push_back(std::move(flow));
      p.bytes.push_back(cf.flows[f].bytes);
      p.member.push_back(cf.sender[f]);
      paths.back().emplace_back();
      path(a, b, paths.back().back());
    }
  }
  std::vector<double> cap(index.size(), 0.0);
  job.capacities.clear();
  for (const auto& [l, local] : index) {
    const bool access = at(l) < is_access_.size() && is_access_[at(l)];
    cap[at(local)] = capacity(l) * (access ? nic_efficiency_ : 1.0);
    job.capacities.emplace_back(l, capacity(l));
  }
  const PhaseSharing sharing(std::move(cap));
  job.phase_rates.assign(phases.size(), {});
  for (std::size_t k = 0; k < phases.size(); ++k) {
    if (phases[k].flows.empty()) continue;
    const std::vector<double> rates = sharing.rates({&phases[k]});
    std::map<int, double> on_link;
    for (std::size_t f = 0; f < rates.size(); ++f)
      if (rates[f] > 0)
        for (int l : paths[k][f])
          on_link[l] += rates[f];
    job.phase_rates[k].assign(on_link.begin(), on_link.end());
  }
  sum_bytes(job);
}

void LinkUtilisation::sum_bytes(Job& job) {
  std::map<int, double> bytes;
  for (std::size_t k = 0; k < job.phase_rates.size(); ++k)
    for (const auto& [l, rate] : job.phase_rates[k])
      bytes[l] += rate * job.traffic.phases[k].alone_s;
  job.bytes_per_step.assign(bytes.begin(), bytes.end());
}

bool LinkUtilisation::same_shape(const JobTraffic& a, const JobTraffic& b) {
  if (a.rank_gpus != b.rank_gpus || a.phases.size() != b.phases.size()) return false;
  for (std::size_t k = 0; k < a.phases.size(); ++k) {
    const TrafficPhase &x = a.phases[k], &y = b.phases[k];
    if (x.pattern != y.pattern || x.ranks != y.ranks || x.stride != y.stride || (x.alone_s > 0) != (y.alone_s > 0))
      return false;
  }
  return true;
}

void LinkUtilisation::set_job(int job, const JobTraffic& traffic) {
  auto it = jobs_.find(job);
  const bool reuse = it != jobs_.end() && same_shape(it->second.traffic, traffic);
  Job& j = jobs_[job];
  j.traffic = traffic;
  j.factors.assign(traffic.phases.size(), 1.0);
  if (reuse) // same GPUs and flows at the same capacities: only the seconds changed
    sum_bytes(j);
  else
    solve_alone(j);
  dirty_ = true;
}

void LinkUtilisation::remove_job(int job) {
  if (jobs_.erase(job) > 0) dirty_ = true;
}

void LinkUtilisation::set_factors(int job, const std::vector<double>& factors) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  std::vector<double> f(it->second.traffic.phases.size(), 1.0);
  for (std::size_t k = 0; k < f.size() && k < factors.size(); ++k)
    f[k] = factors[k];
  if (f == it->second.factors) return;
  it->second.factors = std::move(f);
  dirty_ = true;
}

std::vector<char> LinkUtilisation::bundles_in_routes() const {
  const ClosPlan& plan = fabric_->graph().plan();
  std::vector<char> out;
  for (int l = 0; l < plan.leaves(); ++l)
    out.push_back(fabric_->leaf_bundle_in_routes(l));
  for (int c = 0; c < plan.pods(); ++c)
    out.push_back(fabric_->pod_bundle_in_routes(c));
  return out;
}

void LinkUtilisation::capacities_changed() {
  std::vector<char> routes = bundles_in_routes();
  const bool all = routes != in_routes_; // routes changed: any job's flows may cross other links now
  in_routes_ = std::move(routes);
  for (auto& [id, j] : jobs_) {
    bool redo = all;
    for (std::size_t i = 0; !redo && i < j.capacities.size(); ++i)
      redo = capacity(j.capacities[i].first) != j.capacities[i].second;
    if (redo) solve_alone(j);
  }
  dirty_ = true;
}

void LinkUtilisation::recompute_loads() {
  std::fill(load_.begin(), load_.end(), 0.0);
  for (const auto& [id, j] : jobs_) {
    double step_s = j.traffic.local_s;
    for (std::size_t k = 0; k < j.traffic.phases.size(); ++k)
      step_s += j.traffic.phases[k].alone_s * j.factors[k];
    if (!(step_s > 0)) continue;
    for (const auto& [l, b] : j.bytes_per_step)
      load_[at(l)] += b / step_s;
  }
  for (std::size_t t = 0; t < LINK_TIERS; ++t) {
    TierState& s = now_[t];
    s.values.clear();
    s.zeros = 0;
    for (int l : tier_links_[t]) {
      const double c = capacity(l);
      util_[at(l)] = c > 0 ? load_[at(l)] / c : 0.0;
      if (!(c > 0)) continue; // off: left out
      if (util_[at(l)] > 0)
        s.values.push_back(util_[at(l)]);
      else
        ++s.zeros;
    }
    std::sort(s.values.begin(), s.values.end());
  }
}

TierUtilisation LinkUtilisation::tier_now(LinkTier tier) const {
  const TierState& s = now_[static_cast<std::size_t>(tier)];
  TierUtilisation out;
  out.tier = tier;
  out.links = s.zeros + static_cast<int>(s.values.size());
  out.p50_frac = sorted_quantile(s.values, s.zeros, 0.5);
  out.p99_frac = sorted_quantile(s.values, s.zeros, 0.99);
  out.max_frac = s.values.empty() ? 0.0 : s.values.back();
  double sum = 0;
  for (double v : s.values)
    sum += v;
  out.mean_frac = out.links > 0 ? sum / out.links : 0.0;
  return out;
}

void LinkUtilisation::flush() {
  if (!(pending_s_ > 0)) return;
  for (std::size_t t = 0; t < LINK_TIERS; ++t) {
    const TierState& s = now_[t];
    over_time_[t].add(0.0, s.zeros * pending_s_);
    for (std::size_t i = 0; i < s.values.size();) { // equal values in one add
      std::size_t e = i;
      while (e < s.values.size() && s.values[e] == s.values[i])
        ++e;
      over_time_[t].add(s.values[i], static_cast<double>(e - i) * pending_s_);
      i = e;
    }
  }
  pending_s_ = 0;
}

void LinkUtilisation::advance(double t_s) {
  pending_s_ += std::max(0.0, t_s - last_s_);
  last_s_ = std::max(last_s_, t_s);
  if (!dirty_) return;
  flush();
  recompute_loads();
  dirty_ = false;
  for (int t = 0; t < LINK_TIERS; ++t) {
    if (tier_links_[at(t)].empty()) continue;
    const TierUtilisation now = tier_now(static_cast<LinkTier>(t));
    auto last = std::find_if(points_.rbegin(), points_.rend(), [&](const UtilisationPoint& p) { return p.at.tier == now.tier; });
    const bool same = last != points_.rend() && last->at.p50_frac == now.p50_frac && last->at.p99_frac == now.p99_frac &&
                      last->at.max_frac == now.max_frac && last->at.mean_frac == now.mean_frac && last->at.links == now.links;
    if (!same) points_.push_back({t_s, now});
  }
}

std::vector<TierUtilisation> LinkUtilisation::summary() {
  flush();
  std::vector<TierUtilisation> out;
  for (int t = 0; t < LINK_TIERS; ++t) {
    if (tier_links_[at(t)].empty()) continue;
    const WeightedQuantiles& w = over_time_[at(t)];
    TierUtilisation u;
    u.tier = static_cast<LinkTier>(t);
    u.p50_frac = w.quantile(0.5);
    u.p99_frac = w.quantile(0.99);
    u.max_frac = w.max();
    u.mean_frac = w.mean();
    u.links = now_[at(t)].zeros + static_cast<int>(now_[at(t)].values.size());
    out.push_back(u);
  }
  return out;
}

std::map<int, double> LinkUtilisation::link_utilisation() const {
  std::map<int, double> out;
  for (const auto& links : tier_links_)
    for (int l : links)
      out[l] = util_[at(l)];
  return out;
}

} // namespace dcsim::fabric
