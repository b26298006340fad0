// `dcsim compare BASE CAND --report FILE.html`: the comparison (compare.hpp) as a self-contained page.
//
//   #compare-facts  the two folders, the test (paired when the runs share their seed, else Welch), the
//                   gates or the tolerance, the verdict
//   #compare-table  per job and metric: baseline and candidate means with their 95% intervals, the
//                   difference (candidate − baseline) with its 95% interval, its share of the baseline,
//                   the p-value and Holm's adjusted p-value, the tolerance, the verdict and pass/FAIL for
//                   metrics that can fail
//   #compare-panels one small chart per metric, each on its own scale (svg::compare_panel): baseline and
//                   candidate means with their 95% intervals clipped to the metric's range, the tolerance
//                   limits dashed; regressions first (warning colour), then the metrics that can fail
#pragma once

#include "tools/dcsim/compare.hpp"

#include <string>

namespace dcsim::tools {

std::string compare_report_html(const Comparison& c);

/// Whether a row can fail the comparison: a gated metric (with gates), else a metric with a direction.
bool can_fail(const Comparison& c, const MetricComparison& r);
/// The tolerance a row is held to, as compare applies it: "0.5%", "0.005", or "not gated".
std::string tolerance_text(const Comparison& c, const MetricComparison& r);

} // namespace dcsim::tools
