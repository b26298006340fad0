// `dcsim compare BASE CAND --junit FILE`: the comparison as JUnit XML, the format CI systems (GitLab,
// Jenkins, GitHub Actions' test reporters) read as test results.
//
//   <testsuites name="dcsim compare" tests="N" failures="F" errors="0" skipped="S">
//     <testsuite name="dcsim compare" tests="N" failures="F" errors="0" skipped="S" timestamp=... >
//       <properties> baseline, candidate, test (paired or welch), alpha, gates or tolerance_frac </properties>
//       <testcase classname="dcsim.compare.JOB" name="METRIC" time="0">      one per metric that can fail
//         <failure type="regression" message="...">means, intervals, diff, p</failure>   a regression
//         <skipped message="..."/>         not tested (fewer than 2 replicas on a side, undefined values)
//       </testcase>
//   </testsuites>
// "Metrics that can fail" are the gated metrics (`--metric NAME=TOL`), one testcase per job (or cluster)
// row that has the metric; without gates, every metric with a direction. The file holds no date or host,
// so the same comparison writes the same bytes.
#pragma once

#include "tools/dcsim/compare.hpp"

#include <string>

namespace dcsim::tools {

std::string comparison_junit(const Comparison& c);

} // namespace dcsim::tools
