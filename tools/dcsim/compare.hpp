// `dcsim compare BASELINE_DIR CANDIDATE_DIR`: is the candidate run worse than the baseline?
//
// For every (job, metric) of the two summary.csv files: both means with their 95% confidence intervals,
// the difference (candidate − baseline) and its fraction of the baseline mean, and a test.
//
// The test, on the metric's per-replica values in the two replicas.csv files (sim/welch_test.hpp):
//   - paired t-test when both runs share their seed (scenario.json) and the metric has the same replica
//     indices on both sides: replica i of each run drew the same random numbers (common random
//     numbers), so the differences d_i cancel most of the noise and the test is much sharper;
//   - Welch's two-sided t-test otherwise (independent samples). `--test welch|paired` forces one.
// p-values are Holm–Bonferroni-adjusted over the family of metrics that can fail, at α = 0.05: the
// adjustment keeps the chance that a re-run of the same model fails anywhere at ≤ 5%, however many
// metrics there are.
//
// Which metrics can fail: without gates, every metric with a direction (models/ledger/metric_table.hpp);
// with gates (`--metric NAME=TOL`, repeatable), the gated metrics only, each with its own tolerance:
// absolute (`goodput_frac=0.005`) or relative to the baseline mean (`goodput_frac=1%`); a gated metric
// without a direction fails on a change either way. A cause's share of paid GPU-time
// (`--metric loss_share_frac:CAUSE=TOL`, read from losses.csv: compare_losses.hpp) is gated the same way,
// lower being better.
// A metric is a REGRESSION when all hold: it can fail and moved the worse way; it moved by more than its
// tolerance (without a gate: `tolerance_frac` × |baseline mean|); its adjusted p-value is < α. A metric
// that can fail, present in the baseline and absent from the candidate, is a regression too (outputs are
// never renamed). Fewer than 2 replicas on either side: no test, never a regression.
// Infinite values: a metric whose replicas hold ±inf is not tested (no t-test on infinities); when its
// means differ and either is infinite, the change is certain: REGRESSION if it can fail and moved the
// worse way (verdict "REGRESSION (infinite)"), else improved/changed. Equal infinite means: unchanged.
// Pairing needs both runs' scenario.json to record the same seed: when one records none (the scenario
// gave no "seed" and the run no --seed), the table says so and Welch's test is used.
// Exact mode (`--exact`): the outputs must be byte-identical (every file the baseline's completion
// marker lists, but for run.json); for byte-deterministic outputs (same scenario, seed and dcsim).
// Exit code (distinct, so CI can tell a worse candidate from a broken job): 0 no regression;
// COMPARE_EXIT_REGRESSION (5) when any regression (or, exact, any difference); 2 on unreadable input, bad
// options, and a folder that is not a complete run's outputs (tools/dcsim/completion.hpp); 1 when an
// output (--report, --junit) cannot be written.
#pragma once

#include "models/ledger/metric_table.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::tools {

inline constexpr double COMPARE_ALPHA = 0.05;
inline constexpr int COMPARE_EXIT_REGRESSION = 5; ///< a regression (exact: a difference); see above

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
  /// The 95% interval of the difference of the replicas' means (NaN when not tested): paired,
  /// mean(d) ± t(0.975, n−1)·s_d/√n; Welch, (mean_b − mean_a) ± t(0.975, dof)·√(s_a²/n_a + s_b²/n_b).
  double diff_ci95_low = 0, diff_ci95_high = 0;
  bool tested = false;   ///< a test was possible (≥ 2 replicas, or pairs, each side)
  bool paired = false;   ///< the test was the paired t-test
  double p_value = 1;    ///< two-sided, unadjusted
  double p_adjusted = 1; ///< Holm-adjusted over the tested directional metrics (= p_value for the others)
  std::string
      verdict; ///< regression, improved, changed, not significant, within tolerance, missing, new, undefined
  bool regression = false;
};

/// A per-metric gate: `tolerance` absolute, or a fraction of |baseline mean| when `relative`.
struct Gate {
  std::string metric;
  double tolerance = 0;
  bool relative = false;
};
/// "NAME=TOL" with TOL a number (absolute) or a percentage ("1%": relative). Throws std::invalid_argument.
Gate parse_gate(const std::string& text);

enum class TestChoice { AUTO, WELCH, PAIRED };

struct CompareSettings {
  double tolerance_frac = 0.01;
  TestChoice test = TestChoice::AUTO;
  std::vector<Gate> gates;
};

struct Comparison {
  std::string baseline_dir, candidate_dir;
  double tolerance_frac = 0.01;
  std::vector<Gate> gates;
  bool paired = false; ///< some rows were tested paired (the runs share their seed)
  std::vector<MetricComparison> rows; ///< baseline order, then metrics new in the candidate
  int family = 0;                     ///< metrics that can fail, tested (Holm's m)
  int regressions = 0;
  /// Why replicas were not paired when --test auto could not pair them ("" when paired or --test welch).
  std::string pairing_note;
};

/// Reads both directories (summary.csv and replicas.csv) and compares them. Throws std::runtime_error on
/// missing or malformed files.
Comparison compare_runs(const std::filesystem::path& baseline, const std::filesystem::path& candidate,
                        const CompareSettings& settings);
/// Exact mode: "" when both folders' files (those the baseline's marker lists, but run.json) are
/// byte-identical, else one line per file that differs or is missing.
std::string exact_differences(const std::filesystem::path& baseline, const std::filesystem::path& candidate);
std::string comparison_table(const Comparison& c);
std::string comparison_json(const Comparison& c);

struct CompareOptions {
  std::string baseline_dir, candidate_dir;
  double tolerance_frac = 0.01;
  std::string test = "auto";          ///< auto, welch, paired
  std::vector<std::string> gates;     ///< NAME=TOL
  bool exact = false;
  bool json = false;
  std::string report_path; ///< --report FILE.html: also write the compare page (compare_report.hpp)
  std::string junit_path;  ///< --junit FILE.xml: also write the result as JUnit XML (compare_junit.hpp)
};
int compare_command(const CompareOptions& options);

} // namespace dcsim::tools
