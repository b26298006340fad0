// `dcsim report SWEEP_DIR`: one self-contained report.html from a folder written by `dcsim sweep`
// (sweep.csv, points/point-NNN/, invalid_points.csv when --skip-invalid skipped points; sweep.hpp).
//
// Sections (fixed ids, for people and for the browser test):
//   #sweep-facts     the scenario, the points and each varied key's values
//   #sweep-metrics   each chosen metric against each varied key: the mean of every point with its 95%
//                    confidence interval (sweep.csv's ci95_low and ci95_high: Student t over the point's
//                    replicas) as error bars; one series per value of the other keys (and per job when
//                    several jobs have the metric). Charts `sweep-METRIC-vs-KEY`.
//   #sweep-heatmap   when exactly two keys vary: per metric, a grid of the first key's values × the
//                    second's, coloured by the mean, each cell's text the mean ± half its interval
//   #pareto          the points' goodput (the cluster's goodput_frac mean) against the cluster's GPUs
//                    (racks × GPUs per rack of each point's scenario.json), and against the cluster's
//                    cost_total_usd when the points have cost metrics: points dominated (another has no
//                    more GPUs or cost and no less goodput) faint, the front joined and labelled
//   #invalid-points  the points --skip-invalid skipped, with their problems (listed, not plotted)
//   #sweep-table     every point's values and metrics
// Entities: a metric is drawn for the jobs that have it, and for the cluster only when no job has it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dcsim::tools {

/// A folder written by `dcsim sweep`: it holds sweep.csv.
bool is_sweep_folder(const std::filesystem::path& dir);

/// The sweep report's HTML; `metrics` empty: goodput_frac. Throws std::runtime_error when sweep.csv is
/// malformed or names none of the metrics.
std::string sweep_report_html(const std::filesystem::path& dir, const std::vector<std::string>& metrics);

} // namespace dcsim::tools
