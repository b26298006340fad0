#include "models/fabric/fabric_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace dcsim::fabric {

std::string_view element_kind_name(ElementKind kind) {
  switch (kind) {
  case ElementKind::NIC_PORT: return "nic_port";
  case ElementKind::LINK: return "link";
  case ElementKind::LEAF: return "leaf";
  case ElementKind::SPINE: return "spine";
  case ElementKind::CORE: return "core";
  }
  return "?";
}

namespace {
std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
} // namespace

FabricState::FabricState(const ClosPlan& plan)
    : plan_(&plan), P_(plan.planes()), p_(plan.ports_per_plane()), N_(plan.gpus()), L_(plan.leaves()),
      S_(plan.spines()), C_(plan.cores()), u_(plan.leaf_up_ports()) {
  if (!plan.ok()) throw std::logic_error("FabricState: the plan is not a valid design");
  const int pods = plan.pods();
  port_down_.assign(at(static_cast<std::int64_t>(P_) * N_ * p_), 0);
  slink_down_.assign(at(static_cast<std::int64_t>(P_) * plan.switch_links_per_plane()), 0);
  leaf_down_.assign(at(static_cast<std::int64_t>(P_) * L_), 0);
  spine_down_.assign(at(static_cast<std::int64_t>(P_) * S_), 0);
  core_down_.assign(at(static_cast<std::int64_t>(P_) * C_), 0);
  ports_alive_.assign(at(static_cast<std::int64_t>(P_) * N_), static_cast<std::uint8_t>(p_));
  leaf_up_alive_.assign(at(static_cast<std::int64_t>(P_) * L_), u_);
  spine_up_alive_.assign(at(static_cast<std::int64_t>(P_) * S_), 0);
  for (int q = 0; q < P_; ++q)
    for (int s = 0; s < S_; ++s)
      spine_up_alive_[at(static_cast<std::int64_t>(q) * S_ + s)] = plan.spine_uplinks(s);
  pod_up_alive_.assign(at(static_cast<std::int64_t>(P_) * pods), 0);
  gpu_ports_.assign(at(N_), P_ * p_);
  leaf_access_.assign(at(L_), 0);
  leaf_up_.assign(at(L_), P_ * u_);
  pod_access_.assign(at(pods), 0);
  pod_up_.assign(at(pods), 0);
  for (int l = 0; l < L_; ++l)
    leaf_access_[at(l)] = static_cast<std::int64_t>(plan.leaf_gpu_count(l)) * P_ * p_;
  for (int q = 0; q < P_; ++q)
    for (int pod = 0; pod < pods; ++pod)
      refresh_pod(q, pod);
  for (int pod = 0; pod < pods; ++pod)
    refresh_pod_totals(pod);
}

int FabricState::per_plane_count(ElementKind kind) const {
  switch (kind) {
  case ElementKind::NIC_PORT: return N_ * p_;
  case ElementKind::LINK: return N_ * p_ + plan_->switch_links_per_plane();
  case ElementKind::LEAF: return L_;
  case ElementKind::SPINE: return S_;
  case ElementKind::CORE: return C_;
  }
  return 0;
}

Element FabricState::element(ElementKind kind, std::int64_t unit) const {
  const int per_plane = per_plane_count(kind);
  if (per_plane <= 0 || unit < 0 || unit >= unit_count(kind))
    throw std::out_of_range(fmt::format("fabric: no {} unit {}", element_kind_name(kind), unit));
  return Element{kind, static_cast<int>(unit / per_plane), static_cast<int>(unit % per_plane)};
}

void FabricState::check(const Element& e) const {
  if (e.plane < 0 || e.plane >= P_ || e.index < 0 || e.index >= per_plane_count(e.kind))
    throw std::out_of_range(fmt::format("fabric: no {} {} in plane {}", element_kind_name(e.kind), e.index, e.plane));
}

std::string FabricState::name(const Element& e) const {
  check(e);
  const auto& layout = plan_->layout();
  switch (e.kind) {
  case ElementKind::NIC_PORT:
    return fmt::format("{}/plane{}/port{}", layout.gpu_name(e.index / p_), e.plane, e.index % p_);
  case ElementKind::LINK: {
    if (e.index < N_ * p_)
      return fmt::format("{}/plane{}/cable{}", layout.gpu_name(e.index / p_), e.plane, e.index % p_);
    int i = e.index - N_ * p_;
    if (i < plan_->leaf_uplinks_per_plane()) return fmt::format("plane{}/leaf{:04d}/up{:03d}", e.plane, i / u_, i % u_);
    i -= plan_->leaf_uplinks_per_plane();
    // Spine uplinks: find the spine whose range holds i (ranges are in spine order).
    int lo = 0, hi = S_ - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (plan_->spine_uplink_offset(mid) <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
    return fmt::format("plane{}/spine{:04d}/up{:03d}", e.plane, lo, i - plan_->spine_uplink_offset(lo));
  }
  case ElementKind::LEAF: return fmt::format("plane{}/leaf{:04d}", e.plane, e.index);
  case ElementKind::SPINE: return fmt::format("plane{}/spine{:04d}", e.plane, e.index);
  case ElementKind::CORE: return fmt::format("plane{}/core{:04d}", e.plane, e.index);
  }
  return "?";
}

std::uint8_t& FabricState::counter(const Element& e) {
  const auto plane = static_cast<std::int64_t>(e.plane);
  switch (e.kind) {
  case ElementKind::NIC_PORT: return port_down_[at(plane * N_ * p_ + e.index)];
  case ElementKind::LINK:
    if (e.index < N_ * p_) return port_down_[at(plane * N_ * p_ + e.index)];
    return slink_down_[at(plane * plan_->switch_links_per_plane() + (e.index - N_ * p_))];
  case ElementKind::LEAF: return leaf_down_[at(plane * L_ + e.index)];
  case ElementKind::SPINE: return spine_down_[at(plane * S_ + e.index)];
  case ElementKind::CORE: return core_down_[at(plane * C_ + e.index)];
  }
  throw std::logic_error("FabricState: bad element kind");
}

std::uint8_t FabricState::counter_value(const Element& e) const { return const_cast<FabricState*>(this)->counter(e); }

bool FabricState::is_down(const Element& e) const {
  check(e);
  return counter_value(e) > 0;
}

bool FabricState::fail(const Element& e) {
  check(e);
  std::uint8_t& c = counter(e);
  if (c == 255) throw std::logic_error("FabricState: more than 255 overlapping failures of " + name(e));
  if (++c > 1) return false;
  refresh(e);
  return true;
}

bool FabricState::restore(const Element& e) {
  check(e);
  std::uint8_t& c = counter(e);
  if (c == 0) throw std::logic_error("FabricState: restoring " + name(e) + ", which is up");
  if (--c > 0) return false;
  refresh(e);
  return true;
}

bool FabricState::switch_up(int plane, ElementKind kind, int index) const {
  return counter_value(Element{kind, plane, index}) == 0;
}

int FabricState::port_up_count(int gpu, int plane) const {
  return ports_alive_[at(static_cast<std::int64_t>(plane) * N_ + gpu)];
}

bool FabricState::leaf_uplink_up(int plane, int leaf, int j) const {
  return slink_down_[at(static_cast<std::int64_t>(plane) * plan_->switch_links_per_plane() +
                        static_cast<std::int64_t>(leaf) * u_ + j)] == 0;
}

bool FabricState::spine_uplink_up(int plane, int spine, int t) const {
  return slink_down_[at(static_cast<std::int64_t>(plane) * plan_->switch_links_per_plane() +
                        plan_->leaf_uplinks_per_plane() + plan_->spine_uplink_offset(spine) + t)] == 0;
}

void FabricState::refresh_gpu(int gpu) {
  const int leaf = plan_->leaf_of(gpu);
  int ports = 0;
  for (int q = 0; q < P_; ++q)
    if (leaf_down_[at(static_cast<std::int64_t>(q) * L_ + leaf)] == 0) ports += port_up_count(gpu, q);
  gpu_ports_[at(gpu)] = ports;
}

void FabricState::refresh_leaf_access(int leaf) {
  std::vector<int> gpus;
  plan_->leaf_gpus(leaf, gpus);
  std::int64_t sum = 0;
  for (int g : gpus)
    sum += gpu_ports_[at(g)];
  leaf_access_[at(leaf)] = sum;
}

void FabricState::refresh_leaf_up(int plane, int leaf) {
  int alive = 0;
  for (int j = 0; j < u_; ++j)
    if (leaf_uplink_up(plane, leaf, j) &&
        spine_down_[at(static_cast<std::int64_t>(plane) * S_ + plan_->leaf_uplink_target(leaf, j))] == 0)
      ++alive;
  leaf_up_alive_[at(static_cast<std::int64_t>(plane) * L_ + leaf)] = alive;
  int total = 0;
  for (int q = 0; q < P_; ++q)
    if (leaf_down_[at(static_cast<std::int64_t>(q) * L_ + leaf)] == 0)
      total += leaf_up_alive_[at(static_cast<std::int64_t>(q) * L_ + leaf)];
  leaf_up_[at(leaf)] = total;
}

void FabricState::refresh_spine_up(int plane, int spine) {
  int alive = 0;
  const int n = plan_->spine_uplinks(spine);
  for (int t = 0; t < n; ++t)
    if (spine_uplink_up(plane, spine, t) &&
        core_down_[at(static_cast<std::int64_t>(plane) * C_ + plan_->spine_uplink_target(spine, t))] == 0)
      ++alive;
  spine_up_alive_[at(static_cast<std::int64_t>(plane) * S_ + spine)] = alive;
}

void FabricState::refresh_pod(int plane, int pod) {
  std::int64_t sum = 0;
  if (plan_->tiers() == 3)
    for (int j = 0; j < u_; ++j) {
      const int s = pod * u_ + j;
      if (spine_down_[at(static_cast<std::int64_t>(plane) * S_ + s)] == 0)
        sum += spine_up_alive_[at(static_cast<std::int64_t>(plane) * S_ + s)];
    }
  pod_up_alive_[at(static_cast<std::int64_t>(plane) * plan_->pods() + pod)] = sum;
}

void FabricState::refresh_pod_totals(int pod) {
  const int first = plan_->tiers() == 3 ? plan_->pod_first_leaf(pod) : 0;
  const int n = plan_->pod_leaves(pod);
  pod_access_[at(pod)] = std::accumulate(leaf_access_.begin() + first, leaf_access_.begin() + first + n,
                                         std::int64_t{0});
  std::int64_t up = 0;
  for (int q = 0; q < P_; ++q)
    up += pod_up_alive_[at(static_cast<std::int64_t>(q) * plan_->pods() + pod)];
  pod_up_[at(pod)] = up;
}

void FabricState::refresh(const Element& e) {
  const int q = e.plane;
  const auto recount_ports = [&](int gpu) {
    int alive = 0;
    for (int j = 0; j < p_; ++j)
      if (port_down_[at((static_cast<std::int64_t>(q) * N_ + gpu) * p_ + j)] == 0) ++alive;
    ports_alive_[at(static_cast<std::int64_t>(q) * N_ + gpu)] = static_cast<std::uint8_t>(alive);
  };
  const Affected a = affected(e);
  switch (e.kind) {
  case ElementKind::NIC_PORT: recount_ports(e.index / p_); break;
  case ElementKind::LINK:
    if (e.index < N_ * p_) {
      recount_ports(e.index / p_);
    } else if (e.index - N_ * p_ < plan_->leaf_uplinks_per_plane()) {
      refresh_leaf_up(q, (e.index - N_ * p_) / u_);
    } else {
      for (int pod : a.pods)
        for (int j = 0; j < u_; ++j)
          refresh_spine_up(q, pod * u_ + j);
    }
    break;
  case ElementKind::LEAF: refresh_leaf_up(q, e.index); break; // the leaf's own state enters leaf_up_
  case ElementKind::SPINE:
    if (plan_->tiers() == 2) {
      for (int l = 0; l < L_; ++l)
        refresh_leaf_up(q, l);
    } else {
      for (int l : a.leaves)
        refresh_leaf_up(q, l);
    }
    break;
  case ElementKind::CORE:
    for (int pod = 0; pod < plan_->pods(); ++pod)
      refresh_spine_up(q, pod * u_ + e.index / plan_->cores_per_group());
    break;
  }
  // Plane-aggregated capacities of what the change touches.
  if (e.kind == ElementKind::NIC_PORT || e.kind == ElementKind::LEAF ||
      (e.kind == ElementKind::LINK && e.index < N_ * p_)) {
    for (int g : a.gpus)
      refresh_gpu(g);
    for (int l : a.leaves)
      refresh_leaf_access(l);
  }
  for (int pod : a.pods) {
    refresh_pod(q, pod);
    refresh_pod_totals(pod);
  }
}

Affected FabricState::affected(const Element& e, bool with_gpus) const {
  check(e);
  Affected a;
  const bool three = plan_->tiers() == 3;
  const auto all_gpus = [&] {
    if (!with_gpus) return;
    a.gpus.resize(at(N_));
    std::iota(a.gpus.begin(), a.gpus.end(), 0);
  };
  const auto all_leaves = [&] {
    a.leaves.resize(at(L_));
    std::iota(a.leaves.begin(), a.leaves.end(), 0);
  };
  const auto pod_of_gpu_leaf = [&](int leaf) { return plan_->pod_of_leaf(leaf); };
  const auto add_pod_leaves = [&](int pod, bool gpus_too) {
    const int first = plan_->pod_first_leaf(pod);
    for (int l = first; l < first + plan_->pod_leaves(pod); ++l) {
      a.leaves.push_back(l);
      if (gpus_too) plan_->leaf_gpus(l, a.gpus);
    }
  };
  switch (e.kind) {
  case ElementKind::NIC_PORT:
  case ElementKind::LINK:
    if (e.index < N_ * p_) {
      const int g = e.index / p_;
      a.gpus.push_back(g);
      a.leaves.push_back(plan_->leaf_of(g));
      a.pods.push_back(pod_of_gpu_leaf(a.leaves.back()));
    } else if (e.index - N_ * p_ < plan_->leaf_uplinks_per_plane()) {
      const int leaf = (e.index - N_ * p_) / u_;
      a.leaves.push_back(leaf);
      if (with_gpus) plan_->leaf_gpus(leaf, a.gpus);
    } else {
      const int i = e.index - N_ * p_ - plan_->leaf_uplinks_per_plane();
      const int pod = i / (u_ * plan_->leaves_per_pod());
      a.pods.push_back(pod);
      add_pod_leaves(pod, with_gpus);
    }
    break;
  case ElementKind::LEAF:
    a.leaves.push_back(e.index);
    a.pods.push_back(pod_of_gpu_leaf(e.index));
    if (with_gpus) plan_->leaf_gpus(e.index, a.gpus);
    break;
  case ElementKind::SPINE:
    if (three) {
      const int pod = plan_->pod_of_spine(e.index);
      a.pods.push_back(pod);
      add_pod_leaves(pod, with_gpus);
    } else {
      all_gpus();
      all_leaves();
    }
    break;
  case ElementKind::CORE:
    all_gpus();
    all_leaves();
    a.pods.resize(at(plan_->pods()));
    std::iota(a.pods.begin(), a.pods.end(), 0);
    break;
  }
  std::sort(a.gpus.begin(), a.gpus.end());
  return a;
}

double FabricState::path_frac(int plane, int leaf) const {
  if (leaf_down_[at(static_cast<std::int64_t>(plane) * L_ + leaf)] != 0) return 0.0;
  if (L_ == 1 || plan_->tiers() == 1) return 1.0;
  double frac = static_cast<double>(leaf_up_alive_[at(static_cast<std::int64_t>(plane) * L_ + leaf)]) / u_;
  if (plan_->tiers() == 3 && plan_->pods() > 1) {
    const int pod = plan_->pod_of_leaf(leaf);
    const double pod_frac =
        static_cast<double>(pod_up_alive_[at(static_cast<std::int64_t>(plane) * plan_->pods() + pod)]) /
        (static_cast<double>(u_) * plan_->pod_leaves(pod));
    frac = std::min(frac, pod_frac);
  }
  return frac;
}

double FabricState::leaf_bw_frac(int leaf) const {
  double sum = 0.0;
  for (int q = 0; q < P_; ++q)
    sum += path_frac(q, leaf);
  return sum / P_;
}

bool FabricState::ports_complete(int gpu) const {
  for (int q = 0; q < P_; ++q)
    if (port_up_count(gpu, q) != p_) return false;
  return true;
}

double FabricState::bw_frac(int gpu) const {
  const int leaf = plan_->leaf_of(gpu);
  double sum = 0.0;
  for (int q = 0; q < P_; ++q) {
    const int ports = port_up_count(gpu, q);
    if (ports > 0) sum += ports * path_frac(q, leaf);
  }
  return sum / (static_cast<double>(P_) * p_);
}

} // namespace dcsim::fabric
