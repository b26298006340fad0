// `dcsim report SWEEP_DIR`: one self-contained report.html from a folder written by `dcsim sweep`
// (sweep.csv, points/point-NNN/, invalid_points.csv when --skip-invalid skipped points; sweep.hpp).
//
// Sections (fixed ids, for people and for the browser test):
//   #sweep-facts     the scenario, the points and each varied key's values
//   #sweep-metrics   each chosen metric against each varied key: the mean of every point with its 95%
//                    confidence interval (sweep.csv's ci95_low and ci95_high: Student t over the point's
//                    replicas, clipped to the metric's range: svg::metric_range) as error bars; one series
//                    per value of the other keys (and per job when several jobs have the metric). A key
//                    whose values are all numbers is a numeric axis, values to scale, log where they span
//                    decades (svg::prefers_log); otherwise its values are evenly spaced categories. Charts
//                    `sweep-METRIC-vs-KEY`, class x-linear, x-log or x-categorical.
//   #sweep-heatmap   when exactly two keys vary: per metric, a grid of the first key's values × the
//                    second's, coloured by the mean, each cell's text the mean ± half its interval
//   #pareto          a Pareto front per pair of axes chosen with --pareto X,Y (repeatable), each a metric
//                    of sweep.csv (the cluster's row when it has one, else the first job's; JOB:METRIC
//                    names one) with a better direction in the metric table, or `gpus` (the cluster's
//                    GPUs: racks × GPUs per rack of each point's scenario.json, fewer better). Default: the
//                    goodput_frac against gpus, and against cost_total_usd when the points have cost
//                    metrics. Points dominated (another is at least as good on both axes and better on
//                    one) faint, the front joined and labelled; log axes where the values span decades
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

/// The sweep report's HTML; `metrics` empty: goodput_frac; `pareto`: "X,Y" pairs (empty: the default
/// fronts). Throws std::runtime_error when sweep.csv is malformed, names none of the metrics, or a Pareto
/// axis is unknown or has no better direction.
std::string sweep_report_html(const std::filesystem::path& dir, const std::vector<std::string>& metrics,
                              const std::vector<std::string>& pareto = {});

} // namespace dcsim::tools
