// The columns of fabric_utilisation.csv and fabric_utilisation_series.csv (written for scenarios with a
// fabric; models/fabric/link_utilisation.hpp has the equations), declared once for the outputs,
// `dcsim describe metrics` and docs/metrics.md.
//   fabric_utilisation.csv         replica,tier,plane,links,util_p50_frac,util_p99_frac,util_max_frac,util_mean_frac
//   fabric_utilisation_series.csv  replica,time_s,tier,plane,links,util_p50_frac,util_p99_frac,util_max_frac,util_mean_frac
#pragma once

#include <vector>

namespace dcsim::ledger {

struct UtilisationColumn {
  const char* name;
  const char* unit;
  const char* meaning;
};

/// The series' columns; the time-weighted file has the same without time_s.
const std::vector<UtilisationColumn>& utilisation_columns();

} // namespace dcsim::ledger
