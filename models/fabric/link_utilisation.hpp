// Link utilisation of the fabric over time: how loaded each tier's links are while jobs train.
//
// Load. A training job's step is a cycle [local, fabric phase 1, ..., fabric phase P] (phase_play.hpp;
// the traffic SharedFabric holds, shared_fabric.hpp). While phase k runs alone its flows f move at the
// lockstep max-min rates x_f (bytes/s; PhaseSharing::rates over the same routes and capacities as the
// shared solve: access links at nic_efficiency_frac of their line rate). With other jobs its phase is
// σ_k times longer (SharedFabric's factor, 1 alone) at rates x_f / σ_k on average (the same bytes), and
// the step lasts T = local + Σ_k t_k·σ_k (t_k: the phase's seconds alone, alone_s). So the phase's
// duty share of the step is d_k = t_k·σ_k / T, and the mean load a job puts on link l is
//   load_jl = Σ_k d_k · Σ_{f of phase k through l} x_f / σ_k = Σ_k t_k · Σ_{f ∋ l} x_f / T   (bytes/s)
// and the link's utilisation is
//   u_l = Σ_j load_jl / C_l                                                        (fraction)
// C_l the link's capacity on the platform now (bytes/s; failures included: fabric_platform.hpp; leaf
// and pod bundles at their live ports × port rate × routing_efficiency_frac). A link that is off carries
// nothing and is left out of its tier. A flow's load counts on every tier it crosses, whether or not the
// bundle is on the platform's routes (a bundle that cannot saturate is left off routes, not idle).
// With a coupled component whose solve is right, Σ_j load_jl ≤ C_l on every shared link: sharing
// stretches the jobs' steps T, not their bytes per step.
// Tiers: access (each GPU's link to its leaf, both directions), leaf_spine (each leaf's uplink bundle,
// both directions), spine_core (each pod's bundle, three tiers with several pods). Planes are
// aggregated on the platform (NICs spray over the live planes, fabric_platform.hpp), so each plane's
// links carry the same utilisation as the aggregate: one row per tier, plane "all".
// Over time: advance(t) closes the interval since the last call at the loads then in force. Per tier,
// the distribution of (link, time) pairs weighted by time gives the time-weighted p50, p99 (lower
// quantiles: the least u whose cumulative weight reaches q of the total), the mean and the max over
// the replica; utilisation values are resolved to 1e-6 for the quantiles (mean and max are exact).
// Each change of the loads also yields a point per tier (p50, p99, max, mean over the tier's links at
// that moment), kept only when it differs from the tier's previous point. Engine-free: the platform's
// links are read, never played. Units: s, bytes/s, fractions.
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/fabric/shared_fabric.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

namespace dcsim::fabric {

enum class LinkTier { ACCESS, LEAF_SPINE, SPINE_CORE };
inline constexpr int LINK_TIERS = 3;
std::string_view link_tier_name(LinkTier tier); ///< "access", "leaf_spine", "spine_core"

/// Quantiles of a weighted set of values (resolved to 1e-6).
class WeightedQuantiles {
public:
  void add(double value, double weight);
  /// The least value whose cumulative weight reaches q × the total (0 when empty).
  double quantile(double q) const;
  double max() const { return max_; }
  double mean() const { return weight_ > 0 ? sum_ / weight_ : 0.0; }
  double weight() const { return weight_; }

private:
  std::map<std::int64_t, double> bins_;
  double weight_ = 0, sum_ = 0, max_ = 0;
};

struct TierUtilisation {
  LinkTier tier = LinkTier::ACCESS;
  double p50_frac = 0, p99_frac = 0, max_frac = 0, mean_frac = 0;
  int links = 0; ///< live links of the tier
};

struct UtilisationPoint {
  double time_s = 0;
  TierUtilisation at;
};

class LinkUtilisation {
public:
  /// The fabric must outlive this object; `nic_efficiency_frac` as in SharedRouting.
  LinkUtilisation(const FabricPlatform& fabric, double nic_efficiency_frac);

  /// The job's traffic (as given to SharedFabric); its alone rates are solved here, once per change.
  void set_job(int job, const JobTraffic& traffic);
  void remove_job(int job);
  /// The job's sharing factors per phase (SharedFabric::factors; empty or 1: alone).
  void set_factors(int job, const std::vector<double>& factors);
  /// Capacities changed (a link or plane failed or healed): the alone rates of every job whose links
  /// changed capacity are solved again (every job's when a bundle entered or left the routes).
  void capacities_changed();

  /// Closes [last call, t_s) at the loads in force, then takes the new loads (a point per tier).
  void advance(double t_s);
  /// The tiers present on this fabric (access always; leaf_spine with several leaves; spine_core with
  /// several pods), time-weighted from 0 to the last advance().
  std::vector<TierUtilisation> summary();
  const std::vector<UtilisationPoint>& points() const { return points_; }
  /// Each link's utilisation as of the last advance() (platform link index -> u), for tests.
  std::map<int, double> link_utilisation() const;
  /// The tier's utilisation over its live links as of the last advance().
  TierUtilisation tier_now(LinkTier tier) const;

private:
  struct Job {
    JobTraffic traffic;
    std::vector<double> factors;
    /// Per phase: platform link -> Σ_f x_f (bytes/s while the phase runs alone). Depends on the GPUs,
    /// the phases' shapes and the capacities, not on the phases' seconds: a new step time (a clock
    /// change) reuses it.
    std::vector<std::vector<std::pair<int, double>>> phase_rates;
    std::vector<std::pair<int, double>> bytes_per_step; ///< platform link -> Σ_k t_k Σ_f x_f (bytes)
    std::vector<std::pair<int, double>> capacities;     ///< the solve's links and their capacities
  };
  const FabricPlatform* fabric_;
  double nic_efficiency_;
  std::map<int, Job> jobs_;
  std::array<std::vector<int>, LINK_TIERS> tier_links_;
  std::vector<char> is_access_;
  struct TierState {
    std::vector<double> values; ///< the live links' non-zero utilisations, sorted
    int zeros = 0;              ///< live links carrying nothing
  };
  std::vector<double> load_; ///< per platform link, bytes/s
  std::vector<double> util_; ///< per platform link, fraction
  std::vector<char> in_routes_; ///< per leaf, then pod: its bundle on routes (at the last solves)
  std::array<TierState, LINK_TIERS> now_;
  bool dirty_ = true;
  double last_s_ = 0, pending_s_ = 0; ///< time in force of the current loads not yet in over_time_
  std::array<WeightedQuantiles, LINK_TIERS> over_time_;
  std::vector<UtilisationPoint> points_;

  void solve_alone(Job& job) const;
  static void sum_bytes(Job& job);
  static bool same_shape(const JobTraffic& a, const JobTraffic& b);
  std::vector<char> bundles_in_routes() const;
  void recompute_loads();
  void flush();
  /// The physical path of a flow (every tier it crosses); false within one NVLink domain.
  bool path(int a, int b, std::vector<int>& links) const;
  double capacity(int link) const;
};

} // namespace dcsim::fabric
