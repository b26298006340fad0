#include "models/ledger/utilisation_columns.hpp"

namespace dcsim::ledger {

const std::vector<UtilisationColumn>& utilisation_columns() {
  static const std::vector<UtilisationColumn> columns = {
      {"replica", "-", "replica index"},
      {"time_s", "s", "series only: from this time on (until the tier's next row), the tier's figures over its links"},
      {"tier", "-", "access (GPU to leaf, both directions), leaf_spine (leaf uplink bundles, both directions), "
                    "spine_core (pod bundles, three tiers with several pods)"},
      {"plane", "-", "all: planes are aggregated (NICs spray over live planes), so every plane has these figures"},
      {"links", "count", "live links of the tier (both directions; at the end for the time-weighted rows)"},
      {"util_p50_frac", "fraction", "median link utilisation: Σ over jobs of each phase's flow rate on the link × "
                                    "its duty share of the step, ÷ link capacity (time-weighted over the replica)"},
      {"util_p99_frac", "fraction", "99th percentile of the same (lower quantile, resolved to 1e-6)"},
      {"util_max_frac", "fraction", "the most loaded link (time-weighted file: the most at any time)"},
      {"util_mean_frac", "fraction", "mean over the tier's links (time-weighted file: and over time)"},
  };
  return columns;
}

} // namespace dcsim::ledger
