// `dcsim compare BASE CAND --report FILE.html`: the comparison (compare.hpp) as a self-contained page.
//
//   #compare-facts  the two folders, the test (paired when the runs share their seed, else Welch), the
//                   gates or the tolerance, the verdict
//   #compare-table  per job and metric: baseline and candidate means with their 95% intervals, the
//                   difference (candidate − baseline) with its 95% interval, its share of the baseline,
//                   the p-value and Holm's adjusted p-value, the tolerance, the verdict and pass/FAIL for
//                   metrics that can fail
//   #compare-diff   the differences as a share of the baseline mean with their 95% intervals (a forest
//                   plot, one row per tested metric), metrics that failed in the warning colour
#pragma once

#include "tools/dcsim/compare.hpp"

#include <string>

namespace dcsim::tools {

std::string compare_report_html(const Comparison& c);

} // namespace dcsim::tools
