#include "models/fabric/clos_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dcsim::fabric {
namespace {

int ceil_div(std::int64_t a, std::int64_t b) { return static_cast<int>((a + b - 1) / b); }

/// The smallest divisor of n that is >= at_least (n itself when none is smaller).
int smallest_divisor_at_least(int n, int at_least) {
  for (int d = std::max(1, at_least); d < n; ++d)
    if (n % d == 0) return d;
  return n;
}

std::int64_t max_leaves_for(int radix, int tiers) {
  switch (tiers) {
  case 1: return 1;
  case 2: return radix;
  default: return static_cast<std::int64_t>(radix) * (radix / 2);
  }
}

} // namespace

int ClosPlan::down_ports(int radix, int tiers, double oversubscription) {
  if (tiers == 1) return radix;
  // d = floor(k r / (1 + r)); the epsilon keeps r = 3, k = 512 at exactly 384 despite rounding.
  const double d = std::floor(radix * oversubscription / (1.0 + oversubscription) + 1e-9);
  return std::clamp(static_cast<int>(d), 0, radix);
}

std::int64_t ClosPlan::capacity(int radix, int tiers, double oversubscription, int ports_per_plane) {
  const int d = down_ports(radix, tiers, oversubscription);
  if (ports_per_plane <= 0) return 0;
  return max_leaves_for(radix, tiers) * d / ports_per_plane;
}

namespace {
/// How to attach `gpus` GPUs that `tiers` tiers of radix-k switches cannot: another tier, a larger radix,
/// or fewer racks.
std::string capacity_fix(int k, int tiers, double oversubscription, int ports_per_plane, int gpus) {
  std::string fix;
  if (tiers < 3)
    fix = fmt::format("set tiers to {} (up to {} GPUs)", tiers + 1,
                      ClosPlan::capacity(k, tiers + 1, oversubscription, ports_per_plane));
  int radix_needed = 0;
  for (int r = k + 1; r <= 65536; ++r)
    if (ClosPlan::capacity(r, tiers, oversubscription, ports_per_plane) >= gpus) {
      radix_needed = r;
      break;
    }
  if (radix_needed > 0) fix += fmt::format("{}switch_radix to at least {}", fix.empty() ? "set " : " or ", radix_needed);
  if (fix.empty()) fix = "use fewer racks";
  return fix;
}
} // namespace

ClosPlan::ClosPlan(const FabricSpec& spec, const hardware::Layout& layout)
    : spec_(spec), layout_(layout), gpus_(layout.gpus()), domains_(layout.domains()),
      rails_(layout.domain_gpus()), p_(spec.ports_per_plane()) {
  const int k = spec_.switch_radix;
  const int tiers = spec_.tiers;
  if (k < 2 || tiers < 1 || tiers > 3 || spec_.planes < 1 || p_ < 1 || gpus_ < 1)
    throw std::logic_error("ClosPlan: spec not validated (radix, tiers, planes or ports per plane out of range)");
  d_ = down_ports(k, tiers, spec_.oversubscription);
  u_ = tiers == 1 ? 0 : k - d_;
  max_leaves_ = static_cast<int>(std::min<std::int64_t>(max_leaves_for(k, tiers), 1 << 30));
  max_gpus_ = capacity(k, tiers, spec_.oversubscription, p_);
  const char* domain_word = layout.kind() == hardware::RackKind::NVL72 ? "racks" : "servers";

  if (tiers > 1 && u_ < 1) {
    problems_.push_back({"oversubscription", fmt::format("leaves a radix-{} leaf no uplink port: must be at most {}",
                                                         k, k - 1)});
    return;
  }
  if (gpus_ > max_gpus_) {
    const std::string fix = capacity_fix(k, tiers, spec_.oversubscription, p_, gpus_);
    problems_.push_back({tiers < 3 ? "tiers" : "switch_radix",
                         fmt::format("{} tier{} of radix-{} switches attach at most {} GPUs per plane{}, but the "
                                     "cluster has {}: {}",
                                     tiers, tiers > 1 ? "s" : "", k, max_gpus_,
                                     p_ > 1 ? fmt::format(" at {} ports per GPU", p_) : std::string{}, gpus_, fix)});
    return;
  }
  group_domains_ = d_ / p_;
  if (group_domains_ < 1) {
    problems_.push_back({"nic_ports_per_gpu",
                         fmt::format("puts {} ports of every GPU on one leaf per plane, more than a leaf's {} down "
                                     "ports: lower nic_ports_per_gpu, or raise planes or switch_radix",
                                     p_, d_)});
    return;
  }

  // Rail groups.
  int leaf = 0;
  for (int first = 0; first < domains_; first += group_domains_) {
    RailGroup g;
    g.first_domain = first;
    g.domains = std::min(group_domains_, domains_ - first);
    g.rails_per_leaf = std::min(rails_, d_ / (g.domains * p_));
    g.first_leaf = leaf;
    g.leaves = ceil_div(rails_, g.rails_per_leaf);
    leaf += g.leaves;
    groups_.push_back(g);
  }
  leaves_ = leaf;
  if (leaves_ > max_leaves_) {
    problems_.push_back(
        {tiers < 3 ? "tiers" : "switch_radix",
         fmt::format("rail-optimised cabling needs {} leaves per plane ({} groups of up to {} {} x {} rails), more "
                     "than {} tier{} of radix-{} switches connect ({}): raise {}",
                     leaves_, groups_.size(), group_domains_, domain_word, rails_, tiers, tiers > 1 ? "s" : "", k,
                     max_leaves_, tiers < 3 ? "tiers or switch_radix" : "switch_radix")});
    return;
  }
  group_of_leaf_.resize(static_cast<std::size_t>(leaves_));
  for (std::size_t g = 0; g < groups_.size(); ++g)
    for (int l = 0; l < groups_[g].leaves; ++l)
      group_of_leaf_[static_cast<std::size_t>(groups_[g].first_leaf + l)] = static_cast<int>(g);

  // Upper tiers: the fewest switches that give every lower switch the same number of links to each
  // switch above it (balanced ECMP, so the tiers above the leaf stay non-blocking).
  if (tiers == 2) {
    spines_ = smallest_divisor_at_least(u_, ceil_div(static_cast<std::int64_t>(leaves_) * u_, k));
  } else if (tiers == 3) {
    leaves_per_pod_ = k / 2;
    pods_ = ceil_div(leaves_, leaves_per_pod_);
    spines_ = pods_ * u_;
    const int last = leaves_ - (pods_ - 1) * leaves_per_pod_;
    int c = smallest_divisor_at_least(leaves_per_pod_, ceil_div(leaves_, k));
    while (c < leaves_per_pod_ && (pods_ - 1) * (leaves_per_pod_ / c) + ceil_div(last, c) > k)
      c = smallest_divisor_at_least(leaves_per_pod_, c + 1);
    cores_per_group_ = c;
    cores_ = u_ * cores_per_group_;
  }
}

const RailGroup& ClosPlan::group_of_leaf(int leaf) const {
  return groups_[static_cast<std::size_t>(group_of_leaf_.at(static_cast<std::size_t>(leaf)))];
}

int ClosPlan::leaf_of(int gpu) const {
  const int domain = gpu / rails_;
  const int rail = gpu % rails_;
  const RailGroup& g = groups_[static_cast<std::size_t>(domain / group_domains_)];
  return g.first_leaf + rail / g.rails_per_leaf;
}

int ClosPlan::pod_leaves(int pod) const {
  if (spec_.tiers != 3) return leaves_;
  return std::min(leaves_per_pod_, leaves_ - pod * leaves_per_pod_);
}

int ClosPlan::leaf_gpu_count(int leaf) const {
  const RailGroup& g = group_of_leaf(leaf);
  const int first_rail = (leaf - g.first_leaf) * g.rails_per_leaf;
  return g.domains * (std::min(rails_, first_rail + g.rails_per_leaf) - first_rail);
}

void ClosPlan::leaf_gpus(int leaf, std::vector<int>& out) const {
  const RailGroup& g = group_of_leaf(leaf);
  const int first_rail = (leaf - g.first_leaf) * g.rails_per_leaf;
  const int end_rail = std::min(rails_, first_rail + g.rails_per_leaf);
  for (int dom = g.first_domain; dom < g.first_domain + g.domains; ++dom)
    for (int r = first_rail; r < end_rail; ++r)
      out.push_back(dom * rails_ + r);
}

int ClosPlan::leaf_uplink_target(int leaf, int j) const {
  if (spec_.tiers == 2) return j % spines_;
  return pod_of_leaf(leaf) * u_ + j; // 3 tiers: spine j of the leaf's pod
}

int ClosPlan::spine_uplinks(int spine) const { return spec_.tiers == 3 ? pod_leaves(pod_of_spine(spine)) : 0; }

int ClosPlan::spine_uplink_target(int spine, int t) const {
  const int group = spine % u_; // spine j of every pod connects to core group j
  return group * cores_per_group_ + t % cores_per_group_;
}

int ClosPlan::spine_uplink_offset(int spine) const {
  const int pod = pod_of_spine(spine);
  const int j = spine % u_;
  return u_ * pod * leaves_per_pod_ + j * pod_leaves(pod);
}

} // namespace dcsim::fabric
