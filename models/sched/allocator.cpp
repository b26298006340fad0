#include "models/sched/allocator.hpp"

#include <iterator>
#include <map>

#include <algorithm>
#include <stdexcept>

namespace dcsim::sched {

Allocator::Allocator(const hardware::Layout& layout, const failure::GpuHealth& health, int spare_domains,
                     int cold_domains)
    : layout_(&layout), health_(&health), owner_(static_cast<std::size_t>(layout.gpus()), -1),
      share_of_(static_cast<std::size_t>(layout.gpus()), -1),
      role_(static_cast<std::size_t>(layout.domains()), Role::IDLE),
      domain_job_(static_cast<std::size_t>(layout.domains()), -1),
      domain_up_(static_cast<std::size_t>(layout.domains()), 0),
      draining_(static_cast<std::size_t>(layout.gpus()), 0), cold_left_(cold_domains),
      ready_in_(static_cast<std::size_t>(layout.domains()), -1) {
  const int domains = layout.domains();
  if (spare_domains + cold_domains > domains) throw std::logic_error("Allocator: more spare domains than domains");
  for (int d = domains - spare_domains; d < domains; ++d)
    role_[static_cast<std::size_t>(d)] = Role::SPARE;
  for (int d = domains - spare_domains - cold_domains; d < domains - spare_domains; ++d)
    role_[static_cast<std::size_t>(d)] = Role::COLD;
  for (int g = 0; g < layout.gpus(); ++g)
    if (health.up(g)) ++domain_up_[static_cast<std::size_t>(layout.domain_of(g))];
  held_up_.assign(static_cast<std::size_t>(domains), 0);
  counted_.assign(static_cast<std::size_t>(domains), DomainCount{DomainState::COLD, 0, 0, 0});
  census_.domain_states[static_cast<std::size_t>(DomainState::COLD)] = domains; // what counted_ says so far
  for (int d = 0; d < domains; ++d) {
    update_ready(d);
    schedulable_ += domain_up_[static_cast<std::size_t>(d)] >= layout.domain_usable_gpus();
    recount(d);
  }
}

void Allocator::recount(int domain) {
  const auto i = static_cast<std::size_t>(domain);
  DomainCount& old = counted_[i];
  --census_.domain_states[static_cast<std::size_t>(old.state)];
  census_.fragmentation.first -= old.stranded;
  census_.fragmentation.second -= old.free;
  census_.healthy_allocated_gpus -= old.held;
  DomainCount now;
  now.state = domain_state(domain);
  now.held = held_up_[i];
  if (role_[i] != Role::SPARE && role_[i] != Role::COLD) {
    now.free = domain_up_[i] - held_up_[i];
    if (role_[i] == Role::JOB || domain_up_[i] < layout_->domain_usable_gpus()) now.stranded = now.free;
  }
  ++census_.domain_states[static_cast<std::size_t>(now.state)];
  census_.fragmentation.first += now.stranded;
  census_.fragmentation.second += now.free;
  census_.healthy_allocated_gpus += now.held;
  old = now;
}

void Allocator::update_ready(int domain) {
  const auto d = static_cast<std::size_t>(domain);
  const bool ready = (role_[d] == Role::IDLE || role_[d] == Role::SPARE) && domain_up_[d] >= layout_->domain_usable_gpus();
  const std::int8_t in = ready ? static_cast<std::int8_t>(role_[d]) : std::int8_t{-1};
  if (in == ready_in_[d]) return; // the sets already say so
  ready_in_[d] = in;
  for (int r = 0; r < 2; ++r) {
    const bool here = ready && static_cast<int>(role_[d]) == r;
    if (here)
      ready_[r].insert(domain);
    else
      ready_[r].erase(domain);
  }
}

void Allocator::set_role(int domain, Role role) {
  role_[static_cast<std::size_t>(domain)] = role;
  update_ready(domain);
  recount(domain);
}

Category Allocator::category(int gpu) const {
  if (owner_[static_cast<std::size_t>(gpu)] >= 0) return Category::ALLOCATED;
  if (!health_->up(gpu)) return Category::REPAIR;
  return role_[static_cast<std::size_t>(layout_->domain_of(gpu))] == Role::IDLE ? Category::IDLE : Category::SPARE;
}

void Allocator::on_health_change(int gpu, bool up) {
  if (draining_[static_cast<std::size_t>(gpu)]) return; // already counted unusable
  on_usable_change(gpu, up);
}

void Allocator::set_draining(hardware::GpuRange gpus, bool draining) {
  for (int g = gpus.first; g < gpus.end(); ++g)
    if (!draining && draining_[static_cast<std::size_t>(g)] == 0)
      throw std::logic_error("Allocator::set_draining: ending a drain of a GPU that is not draining");
  for (int g = gpus.first; g < gpus.end(); ++g) {
    std::uint16_t& d = draining_[static_cast<std::size_t>(g)];
    const bool was_usable = usable(g);
    d = static_cast<std::uint16_t>(draining ? d + 1 : d - 1);
    if (usable(g) != was_usable) on_usable_change(g, usable(g));
  }
}

bool Allocator::activate_cold() {
  for (int d = 0; d < layout_->domains(); ++d)
    if (role_[static_cast<std::size_t>(d)] == Role::COLD) {
      set_role(d, Role::SPARE);
      touch_domain(d);
      --cold_left_;
      return true;
    }
  return false;
}

void Allocator::on_usable_change(int gpu, bool up) {
  const int domain = layout_->domain_of(gpu);
  int& count = domain_up_[static_cast<std::size_t>(domain)];
  const int usable = layout_->domain_usable_gpus();
  if (up && ++count == usable) ++schedulable_;
  if (!up && count-- == usable) --schedulable_;
  update_ready(domain);
  const int job = owner_[static_cast<std::size_t>(gpu)];
  if (job >= 0) held_up_[static_cast<std::size_t>(domain)] += up ? 1 : -1;
  recount(domain);
  if (job < 0) return;
  JobPlacement& p = jobs_[static_cast<std::size_t>(job)];
  const int index = share_of_[static_cast<std::size_t>(gpu)];
  Share& share = p.shares[static_cast<std::size_t>(index)];
  share.down += up ? -1 : 1;
  if (!up && share.down == 1)
    p.broken.insert(index);
  else if (up && share.down == 0)
    p.broken.erase(index);
}

void Allocator::own(int gpu, int job, int share_index) {
  owner_[static_cast<std::size_t>(gpu)] = job;
  share_of_[static_cast<std::size_t>(gpu)] = share_index;
  if (usable(gpu)) {
    ++held_up_[static_cast<std::size_t>(layout_->domain_of(gpu))];
    recount(layout_->domain_of(gpu));
  } else {
    JobPlacement& p = jobs_[static_cast<std::size_t>(job)];
    ++p.shares[static_cast<std::size_t>(share_index)].down;
    p.broken.insert(share_index);
  }
}

void Allocator::disown(int gpu) {
  const int job = owner_[static_cast<std::size_t>(gpu)];
  JobPlacement& p = jobs_[static_cast<std::size_t>(job)];
  const int index = share_of_[static_cast<std::size_t>(gpu)];
  Share& share = p.shares[static_cast<std::size_t>(index)];
  if (!usable(gpu) && --share.down == 0) p.broken.erase(index);
  owner_[static_cast<std::size_t>(gpu)] = -1;
  share_of_[static_cast<std::size_t>(gpu)] = -1;
  if (usable(gpu)) {
    --held_up_[static_cast<std::size_t>(layout_->domain_of(gpu))];
    recount(layout_->domain_of(gpu));
  }
}

void Allocator::touch_domain(int domain) {
  if (!changed_) return;
  const auto r = layout_->domain_range(domain);
  for (int g = r.first; g < r.end(); ++g)
    changed_(g);
}

void Allocator::assign(int job, int share_index, int domain, int count) {
  Share& share = jobs_[static_cast<std::size_t>(job)].shares[static_cast<std::size_t>(share_index)];
  share.domain = domain;
  share.gpus.clear();
  const auto r = layout_->domain_range(domain);
  for (int g = r.first; g < r.end() && static_cast<int>(share.gpus.size()) < count; ++g)
    if (usable(g) && owner_[static_cast<std::size_t>(g)] < 0) {
      own(g, job, share_index);
      share.gpus.push_back(g);
    }
  if (static_cast<int>(share.gpus.size()) != count) throw std::logic_error("Allocator::assign: domain too small");
  domain_job_[static_cast<std::size_t>(domain)] = job;
  set_role(domain, Role::JOB);
  touch_domain(domain);
}

void Allocator::release(Share& share) {
  for (int g : share.gpus)
    disown(g);
  share.gpus.clear();
  domain_job_[static_cast<std::size_t>(share.domain)] = -1;
  recount(share.domain);
}

bool Allocator::place(int job, int gpus) {
  if (job >= static_cast<int>(jobs_.size())) jobs_.resize(static_cast<std::size_t>(job) + 1);
  JobPlacement& placement = jobs_[static_cast<std::size_t>(job)];
  if (!placement.shares.empty()) throw std::logic_error("Allocator::place: the job already holds GPUs");
  // Check first, then take: a placement is all or nothing.
  const int usable = layout_->domain_usable_gpus();
  std::vector<std::pair<int, int>> plan; // (domain, GPUs)
  int left = gpus;
  for (const int d : placement_order_for(layout_->domains_for(gpus))) {
    if (left <= 0) break;
    if (role_[static_cast<std::size_t>(d)] != Role::IDLE) continue;
    const int take = std::min(left, usable);
    if (domain_up_[static_cast<std::size_t>(d)] < take) continue;
    plan.emplace_back(d, take);
    left -= take;
  }
  if (left > 0) return false;
  placement.gpus = static_cast<std::size_t>(gpus);
  for (const auto& [d, take] : plan) {
    placement.shares.emplace_back();
    assign(job, static_cast<int>(placement.shares.size()) - 1, d, take);
  }
  return true;
}

void Allocator::set_policy(PlacementPolicy policy, PlacementTopology topology, std::uint64_t spread_seed) {
  const auto domains = static_cast<std::size_t>(layout_->domains());
  if (topology.group_of_domain.size() != domains || topology.pod_of_domain.size() != domains)
    throw std::logic_error("Allocator::set_policy: the topology must give every domain a group and a pod");
  policy_ = policy;
  topology_ = std::move(topology);
  spread_rng_ = std::make_unique<sim::Rng>(spread_seed);
}

std::vector<int> Allocator::placement_order_for(int need) {
  const std::vector<int> free_full(ready_[0].begin(), ready_[0].end());
  return placement_order(policy_, topology_, free_full, need, layout_->domains(), spread_rng_.get());
}

void Allocator::release(int job) {
  if (job >= static_cast<int>(jobs_.size())) return; // never placed
  JobPlacement& placement = jobs_[static_cast<std::size_t>(job)];
  for (Share& share : placement.shares) {
    const int d = share.domain;
    release(share);
    set_role(d, Role::IDLE);
    touch_domain(d);
  }
  placement.shares.clear();
  placement.broken.clear();
  placement.gpus = 0;
}

bool Allocator::resize(int job, int domains) {
  if (job >= static_cast<int>(jobs_.size())) jobs_.resize(static_cast<std::size_t>(job) + 1);
  JobPlacement& placement = jobs_[static_cast<std::size_t>(job)];
  const int usable = layout_->domain_usable_gpus();
  if (domains > 0) {
    std::vector<int> plan;
    for (const int d : placement_order_for(domains))
      if (static_cast<int>(plan.size()) < domains &&
          role_[static_cast<std::size_t>(d)] == Role::IDLE && domain_up_[static_cast<std::size_t>(d)] >= usable)
        plan.push_back(d);
    if (static_cast<int>(plan.size()) < domains) return false;
    for (int d : plan) {
      placement.shares.emplace_back();
      assign(job, static_cast<int>(placement.shares.size()) - 1, d, usable);
      placement.gpus += static_cast<std::size_t>(usable);
    }
    return true;
  }
  for (int k = 0; k < -domains && !placement.shares.empty(); ++k) {
    Share& share = placement.shares.back();
    const int d = share.domain;
    placement.gpus -= share.gpus.size();
    release(share);
    placement.broken.erase(static_cast<int>(placement.shares.size()) - 1);
    placement.shares.pop_back();
    set_role(d, Role::IDLE);
    touch_domain(d);
  }
  return true;
}

int Allocator::job_domain_count(int job) const {
  return job < static_cast<int>(jobs_.size()) ? static_cast<int>(jobs_[static_cast<std::size_t>(job)].shares.size()) : 0;
}

int Allocator::job_gpu_count(int job) const {
  return job < static_cast<int>(jobs_.size()) ? static_cast<int>(jobs_[static_cast<std::size_t>(job)].gpus) : 0;
}

std::pair<int, int> Allocator::fragmentation() const { return census().fragmentation; }

int Allocator::replacement_in(const std::set<int>& ready, const JobPlacement& placement) {
  switch (policy_) {
  case PlacementPolicy::FIRST_FIT: break;
  case PlacementPolicy::SPREAD: {
    auto it = ready.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(spread_rng_->below(ready.size())));
    return *it;
  }
  case PlacementPolicy::PACK: { // most of the job's domains in its rail group, then in its pod; lowest index
    std::map<int, int> in_group, in_pod;
    for (const Share& share : placement.shares) {
      ++in_group[topology_.group_of_domain[static_cast<std::size_t>(share.domain)]];
      ++in_pod[topology_.pod_of_domain[static_cast<std::size_t>(share.domain)]];
    }
    int best = *ready.begin();
    std::pair<int, int> best_key{-1, -1};
    for (int d : ready) {
      const std::pair<int, int> key{in_group[topology_.group_of_domain[static_cast<std::size_t>(d)]],
                                    in_pod[topology_.pod_of_domain[static_cast<std::size_t>(d)]]};
      if (key > best_key) best = d, best_key = key;
    }
    return best;
  }
  }
  return *ready.begin();
}

int Allocator::find_free_domain(int need, const JobPlacement& placement) {
  for (Role wanted : {Role::SPARE, Role::IDLE}) {
    const auto& ready = ready_[static_cast<int>(wanted)];
    if (!ready.empty()) return replacement_in(ready, placement);
  }
  if (need >= layout_->domain_usable_gpus()) return -1;
  // A partial share (a job's last domain) may fit a domain that cannot host a full one.
  for (Role wanted : {Role::SPARE, Role::IDLE})
    for (int d = 0; d < layout_->domains(); ++d)
      if (role_[static_cast<std::size_t>(d)] == wanted && domain_up_[static_cast<std::size_t>(d)] >= need) return d;
  return -1;
}

bool Allocator::recover(int job) {
  if (job >= static_cast<int>(jobs_.size())) return true; // never placed: nothing to replace
  JobPlacement& placement = jobs_[static_cast<std::size_t>(job)];
  const std::vector<int> broken(placement.broken.begin(), placement.broken.end()); // in share order
  for (const int index : broken) {
    Share& share = placement.shares[static_cast<std::size_t>(index)];
    std::vector<std::size_t> down;
    for (std::size_t i = 0; i < share.gpus.size(); ++i)
      if (!usable(share.gpus[i])) down.push_back(i);
    if (down.empty()) continue;

    // 1. In-domain spares.
    std::vector<int> spares;
    const auto r = layout_->domain_range(share.domain);
    for (int g = r.first; g < r.end() && spares.size() < down.size(); ++g)
      if (usable(g) && owner_[static_cast<std::size_t>(g)] < 0) spares.push_back(g);
    if (spares.size() == down.size()) {
      for (std::size_t k = 0; k < down.size(); ++k) {
        const int old_gpu = share.gpus[down[k]];
        disown(old_gpu);
        own(spares[k], job, index);
        share.gpus[down[k]] = spares[k];
        if (changed_) {
          changed_(old_gpu);
          changed_(spares[k]);
        }
        if (moved_) moved_(job, "gpu_swap", layout_->gpu_name(old_gpu), layout_->gpu_name(spares[k]));
      }
      continue;
    }

    // 2. A free domain, spare pool first.
    const int need = static_cast<int>(share.gpus.size());
    const int target = find_free_domain(need, placement);
    if (target < 0) continue;
    const int old_domain = share.domain;
    const Role taken_role = role_[static_cast<std::size_t>(target)];
    release(share);
    set_role(old_domain, taken_role);
    assign(job, index, target, need);
    touch_domain(old_domain);
    ++domain_swaps_;
    if (moved_) moved_(job, "domain_swap", layout_->domain_name(old_domain), layout_->domain_name(target));
  }
  return placement.broken.empty();
}

bool Allocator::usable_gpu_free(int gpu) const { return usable(gpu) && owner_[static_cast<std::size_t>(gpu)] < 0; }

bool Allocator::job_healthy(int job) const {
  return job >= static_cast<int>(jobs_.size()) || jobs_[static_cast<std::size_t>(job)].broken.empty();
}

std::vector<int> Allocator::job_domains(int job) const {
  std::vector<int> out;
  if (job >= static_cast<int>(jobs_.size())) return out;
  for (const Share& share : jobs_[static_cast<std::size_t>(job)].shares)
    out.push_back(share.domain);
  return out;
}

std::vector<int> Allocator::job_gpus(int job) const {
  std::vector<int> out;
  if (job >= static_cast<int>(jobs_.size())) return out;
  for (const Share& share : jobs_[static_cast<std::size_t>(job)].shares)
    out.insert(out.end(), share.gpus.begin(), share.gpus.end());
  return out;
}

std::vector<bool> Allocator::ranks_up(JobId job, const std::vector<int>& ranks) const {
  std::vector<bool> up(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int gpu = gpu_at_rank(job.value(), ranks[i]);
    up[i] = gpu >= 0 && health_->up(gpu);
  }
  return up;
}

std::vector<int> Allocator::ranks_held(JobId job, const std::vector<int>& hit) const {
  std::vector<int> ranks;
  for (int g : hit) {
    const hardware::GpuIndex gpu{g};
    if (owner(gpu) == job) ranks.push_back(rank_of(gpu));
  }
  return ranks;
}

int Allocator::gpu_at_rank(int job, int rank) const {
  if (job < 0 || job >= static_cast<int>(jobs_.size()) || rank < 0) return -1;
  for (const Share& share : jobs_[static_cast<std::size_t>(job)].shares) {
    if (rank < static_cast<int>(share.gpus.size())) return share.gpus[static_cast<std::size_t>(rank)];
    rank -= static_cast<int>(share.gpus.size());
  }
  return -1;
}

int Allocator::rank_of(hardware::GpuIndex gpu_index) const {
  const int gpu = gpu_index.value();
  const int job = owner_[static_cast<std::size_t>(gpu)];
  if (job < 0) return -1;
  const JobPlacement& placement = jobs_[static_cast<std::size_t>(job)];
  const auto index = static_cast<std::size_t>(share_of_[static_cast<std::size_t>(gpu)]);
  int rank = 0;
  for (std::size_t s = 0; s < index; ++s)
    rank += static_cast<int>(placement.shares[s].gpus.size());
  const auto& gpus = placement.shares[index].gpus;
  return rank + static_cast<int>(std::find(gpus.begin(), gpus.end(), gpu) - gpus.begin());
}

int Allocator::schedulable_domains() const { return schedulable_; }

Allocator::DomainState Allocator::domain_state(int domain) const {
  const auto d = static_cast<std::size_t>(domain);
  if (role_[d] == Role::COLD) return DomainState::COLD;
  if (domain_up_[d] < layout_->domain_usable_gpus()) return DomainState::DOWN;
  if (domain_job_[d] >= 0) return DomainState::PRODUCTION;
  return role_[d] == Role::SPARE ? DomainState::SPARE : DomainState::IDLE;
}

std::array<int, 5> Allocator::domain_states() const { return census().domain_states; }

int Allocator::healthy_allocated_gpus() const { return census().healthy_allocated_gpus; }

} // namespace dcsim::sched
