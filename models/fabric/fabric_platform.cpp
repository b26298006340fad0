#include "models/fabric/fabric_platform.hpp"

#include "sim/units.hpp"

#include <fmt/format.h>

#include <functional>
#include <stdexcept>

namespace dcsim::fabric {
namespace {
std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
constexpr double REL_EPS = 1e-12;
} // namespace

FabricPlatform::FabricPlatform(const ClosGraph& graph, const std::string& name,
                               const std::function<void(sim::Platform&)>& before_seal)
    : graph_(&graph), plan_(&graph.plan()), platform_(std::make_unique<sim::Platform>(name)), state_(graph.plan()) {
  const ClosPlan& plan = *plan_;
  const FabricSpec& spec = plan.spec();
  const Graph& g = graph.graph();
  port_bytes_per_s_ = sim::gbps_to_bytes_per_s(spec.port_gbps);
  efficiency_ = spec.routing_efficiency_frac;
  const double link_s = spec.link_latency_us * 1e-6;
  const double switch_s = spec.switch_latency_ns * 1e-9;
  latency_same_leaf_s_ = 2 * link_s + 1 * switch_s;
  latency_two_tier_s_ = 4 * link_s + 3 * switch_s;
  latency_cross_pod_s_ = 6 * link_s + 5 * switch_s;

  // Healthy capacities, in ports, read from the graph (and checked against the state's accounting).
  const int N = plan.gpus();
  std::vector<std::int64_t> gpu_ports(at(N), 0), leaf_up(at(plan.leaves()), 0), pod_up(at(plan.pods()), 0);
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const ClosVertex& a = g[boost::source(*e, g)];
    const ClosVertex& b = g[boost::target(*e, g)];
    const int links = g[*e].links;
    if (a.kind == NodeKind::GPU || b.kind == NodeKind::GPU) {
      gpu_ports[at(a.kind == NodeKind::GPU ? a.index : b.index)] += links;
    } else if (a.kind == NodeKind::LEAF || b.kind == NodeKind::LEAF) {
      leaf_up[at(a.kind == NodeKind::LEAF ? a.index : b.index)] += links;
    } else {
      pod_up[at(plan.pod_of_spine(a.kind == NodeKind::SPINE ? a.index : b.index))] += links;
    }
  }
  leaf_of_.resize(at(N));
  access_.reserve(at(N));
  for (int gpu = 0; gpu < N; ++gpu) // host index = GPU index: hosts first, in GPU order
    if (platform_->add_host(plan.layout().gpu_name(gpu)) != gpu)
      throw std::logic_error("FabricPlatform: host index is not the GPU's");
  for (int gpu = 0; gpu < N; ++gpu) {
    leaf_of_[at(gpu)] = plan.leaf_of(gpu);
    if (gpu_ports[at(gpu)] != state_.gpu_ports(gpu))
      throw std::logic_error("FabricPlatform: graph and state disagree on GPU ports");
    access_.push_back(platform_->add_duplex_link(plan.layout().gpu_name(gpu) + "/nic",
                                                 static_cast<double>(gpu_ports[at(gpu)]) * port_bytes_per_s_, 0.0));
  }
  links_created_ = N;
  add_links(leaf_up, pod_up);
  platform_->add_section_router(0, N, [this](int a, int b, std::vector<int>& links, double& latency_s) {
    if (!route(a, b, links, latency_s))
      throw std::logic_error(fmt::format("FabricPlatform: no fabric route between {} and {} (one NVLink domain)",
                                         plan_->layout().gpu_name(a), plan_->layout().gpu_name(b)));
  });
  for (const auto& halves : {std::cref(access_), std::cref(leaf_bundle_), std::cref(pod_bundle_)})
    for (const auto& d : halves.get())
      for (int half : {d.up, d.down})
        note_capacity(half, platform_->link_bandwidth(half));
  if (before_seal) before_seal(*platform_);
  platform_->seal();
}

void FabricPlatform::note_capacity(int link, double bytes_per_s) {
  if (link < 0) return;
  if (static_cast<std::size_t>(link) >= capacity_.size()) capacity_.resize(static_cast<std::size_t>(link) + 1, 0.0);
  capacity_[static_cast<std::size_t>(link)] = bytes_per_s > 0 ? bytes_per_s : 0.0;
}

FabricPlatform::~FabricPlatform() = default;

void FabricPlatform::add_links(const std::vector<std::int64_t>& leaf_up, const std::vector<std::int64_t>& pod_up) {
  const ClosPlan& plan = *plan_;
  const int L = plan.leaves();
  if (L > 1) {
    leaf_bundle_.reserve(at(L));
    leaf_route_.assign(at(L), 0);
    for (int l = 0; l < L; ++l) {
      if (leaf_up[at(l)] != state_.leaf_up(l))
        throw std::logic_error("FabricPlatform: graph and state disagree on leaf uplinks");
      leaf_bundle_.push_back(platform_->add_duplex_link(
          fmt::format("fabric/leaf{:04d}", l), static_cast<double>(leaf_up[at(l)]) * port_bytes_per_s_ * efficiency_,
          0.0));
      leaf_route_[at(l)] = static_cast<double>(leaf_up[at(l)]) * efficiency_ <
                           static_cast<double>(state_.leaf_access(l)) * (1 - REL_EPS);
    }
    links_created_ += L;
  }
  if (plan.tiers() == 3 && plan.pods() > 1) {
    pod_route_.assign(at(plan.pods()), 0);
    for (int c = 0; c < plan.pods(); ++c) {
      if (pod_up[at(c)] != state_.pod_up(c))
        throw std::logic_error("FabricPlatform: graph and state disagree on pod uplinks");
      pod_bundle_.push_back(platform_->add_duplex_link(
          fmt::format("fabric/pod{:03d}", c), static_cast<double>(pod_up[at(c)]) * port_bytes_per_s_ * efficiency_,
          0.0));
      pod_route_[at(c)] = static_cast<double>(pod_up[at(c)]) * efficiency_ <
                          static_cast<double>(state_.pod_access(c)) * (1 - REL_EPS);
    }
    links_created_ += plan.pods();
  }
}

bool FabricPlatform::route(int gpu_a, int gpu_b, std::vector<int>& links, double& latency_s) const {
  const auto& layout = plan_->layout();
  if (gpu_a == gpu_b || layout.domain_of(gpu_a) == layout.domain_of(gpu_b)) return false;
  const int la = leaf_of_[at(gpu_a)], lb = leaf_of_[at(gpu_b)];
  links.push_back(access_[at(gpu_a)].up);
  if (la == lb) {
    latency_s += latency_same_leaf_s_;
  } else {
    const int pa = plan_->pod_of_leaf(la), pb = plan_->pod_of_leaf(lb);
    const bool cross_pod = !pod_bundle_.empty() && pa != pb;
    if (leaf_route_[at(la)]) links.push_back(leaf_bundle_[at(la)].up);
    if (cross_pod) {
      if (pod_route_[at(pa)]) links.push_back(pod_bundle_[at(pa)].up);
      if (pod_route_[at(pb)]) links.push_back(pod_bundle_[at(pb)].down);
    }
    if (leaf_route_[at(lb)]) links.push_back(leaf_bundle_[at(lb)].down);
    latency_s += cross_pod ? latency_cross_pod_s_ : latency_two_tier_s_;
  }
  links.push_back(access_[at(gpu_b)].down);
  return true;
}

void FabricPlatform::set_capacity(const sim::Platform::DuplexLink& link, double bytes_per_s) {
  for (int half : {link.up, link.down}) {
    note_capacity(half, bytes_per_s);
    if (bytes_per_s > 0) {
      platform_->set_link_bandwidth(half, bytes_per_s);
      platform_->set_link_on(half, true);
    } else {
      platform_->set_link_on(half, false);
    }
  }
}

void FabricPlatform::sync_gpu(int gpu) {
  set_capacity(access_[at(gpu)], static_cast<double>(state_.gpu_ports(gpu)) * port_bytes_per_s_);
}

void FabricPlatform::sync_leaf(int leaf) {
  if (leaf_bundle_.empty()) return;
  const double up = static_cast<double>(state_.leaf_up(leaf)) * efficiency_;
  set_capacity(leaf_bundle_[at(leaf)], up * port_bytes_per_s_);
  leaf_route_[at(leaf)] = up < static_cast<double>(state_.leaf_access(leaf)) * (1 - REL_EPS);
}

void FabricPlatform::sync_pod(int pod) {
  if (pod_bundle_.empty()) return;
  const double up = static_cast<double>(state_.pod_up(pod)) * efficiency_;
  set_capacity(pod_bundle_[at(pod)], up * port_bytes_per_s_);
  pod_route_[at(pod)] = up < static_cast<double>(state_.pod_access(pod)) * (1 - REL_EPS);
}

void FabricPlatform::sync(const Affected& a) {
  for (int l : a.leaves)
    sync_leaf(l);
  for (int c : a.pods)
    sync_pod(c);
}

bool FabricPlatform::fail(const Element& e) {
  if (!state_.fail(e)) return false;
  const Affected a = state_.affected(e);
  const bool access_changed = e.kind == ElementKind::NIC_PORT || e.kind == ElementKind::LEAF ||
                              (e.kind == ElementKind::LINK && e.index < plan_->gpu_links_per_plane());
  if (access_changed)
    for (int g : a.gpus)
      sync_gpu(g);
  sync(a);
  return true;
}

bool FabricPlatform::restore(const Element& e) {
  if (!state_.restore(e)) return false;
  const Affected a = state_.affected(e);
  const bool access_changed = e.kind == ElementKind::NIC_PORT || e.kind == ElementKind::LEAF ||
                              (e.kind == ElementKind::LINK && e.index < plan_->gpu_links_per_plane());
  if (access_changed)
    for (int g : a.gpus)
      sync_gpu(g);
  sync(a);
  return true;
}

} // namespace dcsim::fabric
