// `dcsim compare BASELINE_DIR CANDIDATE_DIR`: is the candidate run worse than the baseline?
//
// For every (job, metric) of the two summary.csv files: both means with their 95% confidence intervals,
// the difference (candidate − baseline) and its fraction of the baseline mean, and a test.
//
// The test: Welch's two-sided t-test (sim/welch_test.hpp) on the metric's per-replica values in the two
// replicas.csv files, with Holm–Bonferroni-adjusted p-values over the family of metrics that have a
// direction (models/ledger/metric_table.hpp), at α = 0.05. The adjustment keeps the chance that a
// re-run of the same model with other seeds fails anywhere at ≤ 5%, however many metrics there are.
//
// A metric is a REGRESSION when all three hold: it has a direction and moved the worse way; it moved
// by more than `tolerance_frac` × |baseline mean|; its adjusted p-value is < α. A metric with a direction
// that the baseline has and the candidate lacks is a regression too (outputs are never renamed).
// Metrics without a direction are compared and reported but never fail. Fewer than 2 replicas on either
// side: no test, never a regression. Exit code: 1 when any regression, else 0; 2 on unreadable input,
// and on a folder that is not a complete run's outputs (tools/dcsim/completion.hpp).
#pragma once

#include "models/ledger/metric_table.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::tools {

inline constexpr double COMPARE_ALPHA = 0.05;

struct MetricStats {
  bool present = false;
  double mean = 0, ci95_low = 0, ci95_high = 0;
  long replicas = 0;
};

struct MetricComparison {
  std::string job, metric;
  std::optional<ledger::Better> better; ///< nullopt: undeclared (no direction)
  MetricStats baseline, candidate;
  double diff = 0;       ///< candidate − baseline (NaN when either is undefined)
  double diff_frac = 0;  ///< diff ÷ |baseline| (NaN when baseline is 0 or undefined)
  bool tested = false;   ///< Welch's test was possible (≥ 2 replicas each side)
  double p_value = 1;    ///< two-sided, unadjusted
  double p_adjusted = 1; ///< Holm-adjusted over the tested directional metrics (= p_value for the others)
  std::string
      verdict; ///< regression, improved, changed, not significant, within tolerance, missing, new, undefined
  bool regression = false;
};

struct Comparison {
  std::string baseline_dir, candidate_dir;
  double tolerance_frac = 0.01;
  std::vector<MetricComparison> rows; ///< baseline order, then metrics new in the candidate
  int family = 0;                     ///< directional metrics tested (Holm's m)
  int regressions = 0;
};

/// Reads both directories (summary.csv and replicas.csv) and compares them. Throws std::runtime_error on
/// missing or malformed files.
Comparison compare_runs(const std::filesystem::path& baseline, const std::filesystem::path& candidate,
                        double tolerance_frac);
std::string comparison_table(const Comparison& c);
std::string comparison_json(const Comparison& c);

struct CompareOptions {
  std::string baseline_dir, candidate_dir;
  double tolerance_frac = 0.01;
  bool json = false;
};
int compare_command(const CompareOptions& options);

} // namespace dcsim::tools
