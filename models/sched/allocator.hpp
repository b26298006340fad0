// Placement of jobs on NVLink domains, and replacement of failed GPUs.
//
// A job takes whole domains (racks for nvl72, servers for hgx) and uses up to `domain_usable_gpus` GPUs
// in each; the rest of a domain it holds are in-domain spares. The last `spare_domains` domains form the
// spare pool; other unused domains are idle. Replacing a job's down GPUs, domain by domain:
//   1. with healthy spare GPUs of the same domain (an in-rack swap: the job stays in its NVLink domain);
//   2. otherwise by moving the job's share to a free domain with enough healthy GPUs, from the spare pool
//      first, then idle ones (the freed domain takes the role of the one taken), chosen by the placement
//      policy (first fit: lowest index; pack: nearest the job's other domains; spread: random);
//   3. otherwise the job waits, holding its down GPUs, until a repair makes 1 or 2 possible.
// Every job holds exactly its `gpus` GPUs at all times, so unallocated GPUs number total - Σ jobs.
//
// For the cluster ledger each unallocated GPU is in one category: repair (down), spare (healthy, in a
// job's domain or in the spare pool) or idle.
// Draining GPUs (a planned repair needs them: set_draining) stay up but are unusable: no job is placed
// on them, and a job holding some swaps them out at its next recovery, as if they were down.
// Cold spare domains (powered off) are never used until activate_cold() turns one into a warm spare.
#pragma once

#include "models/failure/gpu_health.hpp"
#include "models/hardware/ids.hpp"
#include "models/hardware/layout.hpp"
#include "models/sched/job_id.hpp"
#include "models/sched/placement_policy.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::sched {

enum class Category { ALLOCATED, REPAIR, SPARE, IDLE };

class Allocator {
public:
  /// `moved` reports a replacement: (job, kind "gpu_swap" | "domain_swap", from, to).
  using MoveHook = std::function<void(int job, const std::string& kind, const std::string& from, const std::string& to)>;

  /// The last `spare_domains` domains are warm spares; `cold_domains` more before them are cold spares.
  Allocator(const hardware::Layout& layout, const failure::GpuHealth& health, int spare_domains, int cold_domains = 0);

  /// Places a job of `gpus` GPUs on free non-spare domains in the order of the placement policy
  /// (placement_policy.hpp; first fit unless set_policy said otherwise) (it must hold none). Returns false
  /// (and places nothing) when they are too few.
  bool place(int job, int gpus);
  /// The policy place() and resize() follow; SPREAD draws from a stream seeded with `spread_seed`.
  void set_policy(PlacementPolicy policy, PlacementTopology topology, std::uint64_t spread_seed);
  /// Frees every GPU of a job: its domains become idle.
  void release(int job);
  /// Gives a job (placed or not) `domains` more domains (false, and nothing changes, when too few are free) or
  /// takes its last `-domains` domains back (idle). The job's GPU count follows (domains x usable GPUs).
  bool resize(int job, int domains);
  /// Free domains able to host a full share right now (idle ones, not counting the spare pool).
  int free_domains() const { return static_cast<int>(ready_[0].size()); }
  /// Domains a job holds.
  int job_domain_count(int job) const;
  /// GPUs a job holds.
  int job_gpu_count(int job) const;
  /// Healthy unallocated GPUs in domains that cannot host a full share (fragmentation), and all healthy
  /// unallocated GPUs outside the spare pool.
  std::pair<int, int> fragmentation() const;
  /// Replaces the job's down GPUs where possible; returns true when all its GPUs are up.
  bool recover(int job);
  bool job_healthy(int job) const;

  /// Domains a job holds, in placement order.
  std::vector<int> job_domains(int job) const;
  /// Calls f(GPUs held, GPUs of them usable) for each domain a job holds, in placement order (O(domains)).
  template <class F> void for_each_share(int job, F&& f) const {
    if (job < 0 || job >= static_cast<int>(jobs_.size())) return;
    for (const Share& share : jobs_[static_cast<std::size_t>(job)].shares)
      f(static_cast<int>(share.gpus.size()), static_cast<int>(share.gpus.size()) - share.down);
  }
  /// A job's GPUs in rank order: its domains in placement order, each domain's GPUs in the order of its
  /// share (a spare swapped in takes the place of the GPU it replaces).
  std::vector<int> job_gpus(int job) const;
  /// The GPU at `rank` of job_gpus(job) without building it (O(domains held)); -1 when out of range.
  int gpu_at_rank(int job, int rank) const;
  /// A held GPU's rank: its index in job_gpus(owner) (-1 when no job holds it).
  int rank_of(hardware::GpuIndex gpu) const;
  /// Whether the GPU at each of these ranks of `job` is up now (false for a rank it does not hold): a
  /// recovery strategy's question (workload/recovery/strategy.hpp, RecoveryHost::ranks_up).
  std::vector<bool> ranks_up(JobId job, const std::vector<int>& ranks) const;
  /// The ranks in `job` of those of the GPUs `hit` it holds, in the order of `hit` (a failure's struck
  /// ranks, for a strategy that wants them).
  std::vector<int> ranks_held(JobId job, const std::vector<int>& hit) const;

  /// The job using a GPU, or JobId{-1}.
  JobId owner(hardware::GpuIndex gpu) const { return JobId{owner_[gpu.index()]}; }
  Category category(int gpu) const;

  /// Keeps per-domain counts current; call on every GPU up/down transition.
  void on_health_change(int gpu, bool up);
  /// Starts (true) or ends (false) a drain of GPUs (unusable while any drain holds them, see above).
  /// Drains nest: a GPU two drains hold (the world's planned repair and the facility's) is usable again
  /// only when both have ended. Each start is paired with one end; ending an absent drain throws.
  void set_draining(hardware::GpuRange gpus, bool draining);
  bool usable(int gpu) const { return health_->up(gpu) && draining_[static_cast<std::size_t>(gpu)] == 0; }
  /// The last `cold` domains (before the spare pool's... see constructor) are cold spares.
  int cold_domains() const { return cold_left_; }
  /// Turns one cold spare into a warm spare; returns false when none is left.
  bool activate_cold();
  /// Domain swaps made since the last call (a warm spare's swap-in costs restart time).
  int take_domain_swaps() { return std::exchange(domain_swaps_, 0); }
  /// The job holding a domain, or -1.
  int domain_job(int domain) const { return domain_job_[static_cast<std::size_t>(domain)]; }
  /// Called whenever a GPU's category may have changed (for the cluster ledger).
  void set_change_hook(std::function<void(int gpu)> hook) { changed_ = std::move(hook); }
  void set_move_hook(MoveHook hook) { moved_ = std::move(hook); }

  /// Domains able to host a job's full share right now (healthy GPUs >= usable GPUs per domain).
  int schedulable_domains() const;

  /// Lifecycle state of a domain (Cabinet Wrangler's view), first match: COLD (a powered-off spare), DOWN
  /// (fewer usable GPUs than a share needs: in repair, drained, isolated), PRODUCTION (held by a job),
  /// SPARE (the warm pool), IDLE.
  enum class DomainState { PRODUCTION, IDLE, SPARE, COLD, DOWN };
  static constexpr std::array<const char*, 5> DOMAIN_STATE_NAMES = {"production", "idle", "spare", "cold", "down"};
  DomainState domain_state(int domain) const;
  /// Domains in each state, indexed by DomainState.
  std::array<int, 5> domain_states() const;
  /// Healthy GPUs held by jobs (the production GPUs that can work).
  int healthy_allocated_gpus() const;
  /// The three above at once, kept current at every change (O(1) per change; the time series samples it).
  struct Census {
    std::pair<int, int> fragmentation;
    std::array<int, 5> domain_states{};
    int healthy_allocated_gpus = 0;
  };
  const Census& census() const { return census_; }

private:
  enum class Role : std::int8_t { IDLE, SPARE, JOB, COLD };
  struct Share {
    int domain = -1;
    std::vector<int> gpus; ///< the job's GPUs in this domain
    int down = 0;          ///< how many of them are down
  };
  struct JobPlacement {
    std::size_t gpus = 0;
    std::vector<Share> shares;
    std::set<int> broken; ///< shares with down GPUs: recovery visits only these
  };

  const hardware::Layout* layout_;
  const failure::GpuHealth* health_;
  std::vector<int> owner_;      ///< per GPU
  std::vector<int> share_of_;   ///< per GPU: index of its owner's share, or -1
  std::vector<Role> role_;      ///< per domain
  std::vector<int> domain_job_; ///< per domain: job or -1
  std::vector<int> domain_up_;  ///< per domain: usable GPUs
  std::vector<std::uint16_t> draining_; ///< per GPU: drains holding it
  int cold_left_ = 0;
  int domain_swaps_ = 0;
  /// Free domains able to host a full share (healthy GPUs >= usable), per role IDLE / SPARE, by index:
  /// finding a replacement domain is O(log domains), not a scan.
  std::set<int> ready_[2];
  std::vector<std::int8_t> ready_in_; ///< per domain: the ready_ set holding it (0, 1) or -1
  int schedulable_ = 0; ///< domains with healthy GPUs >= usable GPUs per domain
  std::vector<JobPlacement> jobs_;
  std::vector<int> held_up_; ///< per domain: usable GPUs held by jobs
  /// Per domain: what it adds to census_ (its state, free and stranded usable GPUs, held usable GPUs).
  struct DomainCount {
    DomainState state = DomainState::IDLE;
    int free = 0, stranded = 0, held = 0;
  };
  std::vector<DomainCount> counted_;
  Census census_;
  void recount(int domain); ///< replaces the domain's share of census_ by its current one
  std::function<void(int)> changed_;
  MoveHook moved_;

  void assign(int job, int share_index, int domain, int count);
  void release(Share& share);
  void own(int gpu, int job, int share_index);
  void disown(int gpu);
  /// A free domain for a share of `need` GPUs of `placement`: the spare pool first, then idle domains;
  /// among those able to host a full share, by the policy (first fit: lowest index; pack: most of the
  /// job's domains in its rail group, then its pod, lowest index on ties; spread: uniform, from the
  /// spread stream); a partial share takes the lowest index that fits.
  int find_free_domain(int need, const JobPlacement& placement);
  int replacement_in(const std::set<int>& ready, const JobPlacement& placement);
  /// Domains in the order a job of `need` domains takes them (placement_policy.hpp).
  std::vector<int> placement_order_for(int need);
  PlacementPolicy policy_ = PlacementPolicy::FIRST_FIT;
  PlacementTopology topology_;
  std::unique_ptr<sim::Rng> spread_rng_;
  void set_role(int domain, Role role);
  void update_ready(int domain);
  void on_usable_change(int gpu, bool usable);
  bool usable_gpu_free(int gpu) const;
  void touch_domain(int domain);
};

} // namespace dcsim::sched
