#include "models/workload/recovery/strategies/ft_dp_strategy.hpp"

#include "models/workload/recovery/registry.hpp"

#include "models/workload/training_job.hpp"
#include "models/workload/transformer_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace dcsim::workload {

using sim::KeyDef;
using sim::ValueType;

namespace {

class FtDpStrategy final : public RecoveryStrategy {
public:
  FtDpStrategy(const FtDpParams& params, RecoveryHost& host);
  bool wants_ranks() const override { return true; }
  bool on_struck(std::uint64_t id, FailureCause mode, const std::vector<int>& ranks) override;
  bool on_detected(std::uint64_t id) override;
  void on_capacity_changed() override;
  void on_cycling() override;
  void reset(std::vector<std::uint64_t>& undetected) override;
  double running_share() const override;
  std::uint64_t drops() const override { return drops_; }
  int out() const override { return out_; }

private:
  struct Group {
    bool out = false;
    bool ready = false;                 ///< back, swapped in and caught up: rejoins at the next chance
    std::set<std::uint64_t> undetected; ///< its failures not yet detected
    std::vector<int> ranks;             ///< its struck ranks (they must be up again)
    FailureCause mode{-1};              ///< the failure mode that dropped it (loss by cause)
    sim::Tick swapped_until = -1;       ///< its GPUs were swapped in by a recovery that ends then
    sim::EventQueue::EventId back;      ///< the end of its swap-in, checks and catch-up
  };
  FtDpParams p_;
  RecoveryHost* host_;
  std::vector<Group> groups_;
  std::set<std::uint64_t> hang_; ///< failures of running groups not yet detected: the job hangs
  std::set<int> waiting_;        ///< groups out, detected, waiting for their GPUs
  FailureCause hang_mode_{-1};   ///< the mode of the newest failure of the hang (its quorum stall's cause)
  int out_ = 0;
  std::uint64_t drops_ = 0;

  /// Of these groups, those detected whose GPUs are back (after one recovery, for all of them) swap in,
  /// check and catch up, then are ready to rejoin.
  void try_back(std::vector<int> candidates);
  void rejoin_ready();
};


std::vector<KeyDef> ft_dp_keys() {
  return {
      KeyDef{"replica_groups", ValueType::INTEGER, "", nullptr,
             "ft_dp: data-parallel replica groups N (>= 2); it divides the job's GPUs, and with a model the "
             "parallelism's dp",
             sim::between(2, 1 << 24), {}, "with a model: its dp; required without"},
      KeyDef{"min_groups", ValueType::INTEGER, "", 1,
             "ft_dp: fewest groups that keep training; a failure leaving fewer restarts the whole job",
             sim::between(1, 1 << 24)},
      KeyDef{"stall_s", ValueType::NUMBER, "s", 30.0,
             "ft_dp: after a failure is detected (the job hangs until then), the whole job makes no progress "
             "this long while the quorum re-forms without the struck groups (ledger detection)",
             sim::non_negative()},
      KeyDef{"rejoin_s", ValueType::NUMBER, "s", 30.0,
             "ft_dp: the whole job makes no progress this long when groups rejoin (ledger restart)",
             sim::non_negative()},
      KeyDef{"catchup_s", ValueType::NUMBER, "s", 0.0,
             "ft_dp: a group whose GPUs are back restores its state from its peers this long before it "
             "rejoins (only that group waits; its time is reduced_batch)",
             sim::non_negative()},
      KeyDef{"catchup_gb", ValueType::NUMBER, "GB", nullptr,
             "ft_dp: instead of catchup_s, the state a rejoining group copies from a peer (weights and "
             "optimizer state of its shard), at catchup_gbps",
             sim::positive(), {}, "catchup_s"},
      KeyDef{"catchup_gbps", ValueType::NUMBER, "Gb/s", nullptr,
             "ft_dp: the bandwidth of a catch-up of catchup_gb over the fabric (e.g. one 800 Gb/s NIC per "
             "GPU times the group's GPUs, if the peers can serve it)",
             sim::positive(), {}, "required with catchup_gb"},
  };
}

void decode_groups(const sim::Node& n, const RecoveryContext& ctx, FtDpParams& r) {
  if (ctx.model) {
    r.inner_ranks = ctx.model->parallelism.tp * ctx.model->parallelism.cp;
    r.dp = ctx.model->parallelism.dp;
  } else {
    r.dp = ctx.gpus;
  }
  if (n.has("replica_groups")) {
    r.replica_groups = std::max(2, n.int32("replica_groups")); // out of bounds: reported by the table
  } else if (ctx.model) {
    r.replica_groups = r.dp;
  } else {
    n.problem_here("missing replica_groups (required for strategy \"ft_dp\" without a model)");
    r.replica_groups = 2;
  }
  if (ctx.model && r.dp < 2)
    n.problem_here(fmt::format("ft_dp needs at least 2 data-parallel replicas (the model's dp is {})", r.dp));
  else if (ctx.model && r.dp % r.replica_groups != 0)
    n.problem("replica_groups", fmt::format("must divide the model's dp ({})", r.dp));
  else if (!ctx.model && ctx.gpus > 0 && ctx.gpus % r.replica_groups != 0)
    n.problem("replica_groups", fmt::format("must divide the job's gpus ({})", ctx.gpus));
  if (r.min_groups > r.replica_groups)
    n.problem("min_groups", fmt::format("must not exceed replica_groups ({})", r.replica_groups));
  if (r.dp < r.replica_groups || r.dp % r.replica_groups != 0) { // keep group_of_rank defined after a problem
    r.dp = r.replica_groups;
    r.inner_ranks = 1;
  }
}

std::shared_ptr<const StrategyParams> decode_ft_dp(const sim::Node& n, const RecoveryContext& ctx) {
  auto r = std::make_shared<FtDpParams>();
  r->min_groups = n.int32("min_groups");
  r->stall_s = n.number("stall_s");
  r->rejoin_s = n.number("rejoin_s");
  r->catchup_s = n.number("catchup_s");
  if (n.has("catchup_gb")) {
    if (n.has("catchup_s")) n.problem("catchup_gb", "give catchup_s or catchup_gb, not both");
    if (!n.has("catchup_gbps")) n.problem_here("missing catchup_gbps (required with catchup_gb)");
    else r->catchup_s = n.number("catchup_gb") * 8 / n.number("catchup_gbps");
  } else if (n.has("catchup_gbps")) {
    n.problem("catchup_gbps", "applies only with catchup_gb");
  }
  decode_groups(n, ctx, *r);
  if (ctx.min_gpus_frac < 1)
    n.problem("strategy", "ft_dp does not combine with an elastic job (min_gpus_frac < 1): give one");
  return r;
}

} // namespace

const StrategyEntry& ft_dp_strategy_entry() {
  static const StrategyEntry entry{
      "ft_dp", 10,
      "fault-tolerant data parallelism, the replica groups struck drop out once the failure is detected "
          "and the others train on at a smaller global batch; each group rejoins when its own GPUs are back",
          ft_dp_keys(), decode_ft_dp,
          [](const RecoverySpec& spec, RecoveryHost& host) -> std::unique_ptr<RecoveryStrategy> {
            return std::make_unique<FtDpStrategy>(*spec.as<FtDpParams>(), host);
          }};
  return entry;
}

FtDpStrategy::FtDpStrategy(const FtDpParams& params, RecoveryHost& host)
    : p_(params), host_(&host), groups_(static_cast<std::size_t>(params.replica_groups)) {}

double FtDpStrategy::running_share() const {
  if (out_ == 0) return 1.0;
  return static_cast<double>(p_.replica_groups - out_) / static_cast<double>(p_.replica_groups);
}

bool FtDpStrategy::on_struck(std::uint64_t id, FailureCause mode, const std::vector<int>& ranks) {
  if (!host_->absorbable()) return false;
  std::set<int> struck;
  for (int r : ranks)
    struck.insert(p_.group_of_rank(r));
  int newly = 0;
  for (int g : struck)
    newly += groups_[static_cast<std::size_t>(g)].out ? 0 : 1;
  if (p_.replica_groups - out_ - newly < p_.min_groups) return false; // too few left: the whole job restarts
  host_->count_failure(mode);
  for (int r : ranks) {
    Group& g = groups_[static_cast<std::size_t>(p_.group_of_rank(r))];
    g.undetected.insert(id);
    g.ranks.push_back(r);
    if (g.mode.value() < 0) g.mode = mode;
    g.ready = false; // back to waiting: a swap-in or catch-up in progress starts again later
    host_->queue().cancel(g.back);
    waiting_.erase(p_.group_of_rank(r));
  }
  if (newly == 0) return true; // only groups already out: the others do not notice
  host_->settle();             // the time so far at the old share (or the stall it ends)
  for (int g : struck)
    groups_[static_cast<std::size_t>(g)].out = true;
  out_ += newly;
  ++drops_;
  host_->note("group_drop", fmt::format("{} of {} groups out ({})", out_, p_.replica_groups, host_->cause_name(mode)));
  hang_.insert(id);
  hang_mode_ = mode;
  host_->pause(JobTime::DETECTION, -1, mode); // the job hangs until the failure is detected
  return true;
}

bool FtDpStrategy::on_detected(std::uint64_t id) {
  bool ours = false;
  std::vector<int> detected;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].undetected.erase(id)) continue;
    ours = true;
    if (groups_[g].undetected.empty()) detected.push_back(static_cast<int>(g));
  }
  waiting_.insert(detected.begin(), detected.end());
  try_back(detected);
  if (hang_.erase(id) && hang_.empty()) host_->pause(JobTime::DETECTION, sim::to_ticks(p_.stall_s), hang_mode_); // quorum
  return ours;
}

void FtDpStrategy::try_back(std::vector<int> candidates) {
  std::erase_if(candidates, [this](int g) {
    const Group& group = groups_[static_cast<std::size_t>(g)];
    return !group.out || group.ready || !group.undetected.empty() || host_->queue().pending(group.back);
  });
  if (candidates.empty()) return;
  // The recovery swaps spares in for every down GPU of the job, whichever group it is in and whether or not
  // that group's failure is detected yet: each group it brings back spends the swap-in (and checks) from
  // now, and a group detected later waits for what is left of it. A candidate it did not bring back (its
  // GPUs came back by a repair) spends only what is left of an earlier swap of its own, or, when the
  // recovery swapped nothing, the recovery's checks.
  std::vector<int> out;
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].out) out.push_back(static_cast<int>(g));
  std::vector<int> ranks;
  std::vector<std::size_t> begin;
  for (int g : out) {
    begin.push_back(ranks.size());
    const auto& mine = groups_[static_cast<std::size_t>(g)].ranks;
    ranks.insert(ranks.end(), mine.begin(), mine.end());
  }
  begin.push_back(ranks.size());
  auto all_up = [&begin](const std::vector<bool>& up, std::size_t k) {
    return std::all_of(up.begin() + static_cast<std::ptrdiff_t>(begin[k]),
                       up.begin() + static_cast<std::ptrdiff_t>(begin[k + 1]), [](bool u) { return u; });
  };
  const std::vector<bool> before = host_->ranks_up(ranks);
  sim::Tick extra = 0;
  host_->recover(extra);
  const std::vector<bool> up = host_->ranks_up(ranks);
  const sim::Tick now = host_->queue().now();
  bool swapped = false;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (!all_up(before, k) && all_up(up, k)) {
      groups_[static_cast<std::size_t>(out[k])].swapped_until = now + extra;
      swapped = true;
    }
  for (int index : candidates) {
    const auto k = static_cast<std::size_t>(std::find(out.begin(), out.end(), index) - out.begin());
    if (!all_up(up, k)) continue; // not yet: a capacity change retries
    const sim::Tick own = std::max<sim::Tick>(0, groups_[static_cast<std::size_t>(index)].swapped_until - now);
    const sim::Tick delay = (swapped ? own : std::max(own, extra)) + sim::to_ticks(p_.catchup_s);
    waiting_.erase(index);
    auto ready = [this, index] {
      Group& group = groups_[static_cast<std::size_t>(index)];
      group.back = {};
      group.ready = true;
      rejoin_ready();
    };
    if (delay == 0)
      ready();
    else
      groups_[static_cast<std::size_t>(index)].back = host_->queue().after(delay, ready);
  }
}

void FtDpStrategy::rejoin_ready() {
  if (!host_->cycling()) return; // at the end of the pause or stall (on_cycling)
  int back = 0;
  for (const Group& g : groups_)
    back += g.ready ? 1 : 0;
  if (back == 0) return;
  host_->settle(); // the cycle so far with the groups out
  FailureCause cause{-1}; // the rejoin stall's: the failure mode that dropped the first group back
  for (Group& g : groups_) {
    if (!g.ready) continue;
    if (cause.value() < 0) cause = g.mode;
    g = Group{};
  }
  out_ -= back;
  host_->note("group_rejoin", fmt::format("{} of {} groups out", out_, p_.replica_groups));
  host_->pause(JobTime::RESTART, sim::to_ticks(p_.rejoin_s), cause);
}

void FtDpStrategy::on_capacity_changed() {
  if (!waiting_.empty()) try_back({waiting_.begin(), waiting_.end()});
}

void FtDpStrategy::on_cycling() { rejoin_ready(); }

void FtDpStrategy::reset(std::vector<std::uint64_t>& undetected) {
  std::set<std::uint64_t> ids(hang_);
  for (Group& g : groups_) {
    ids.insert(g.undetected.begin(), g.undetected.end());
    host_->queue().cancel(g.back);
    g = Group{};
  }
  undetected.insert(undetected.end(), ids.begin(), ids.end());
  hang_.clear();
  waiting_.clear();
  out_ = 0;
}

} // namespace dcsim::workload
