// `dcsim describe [AREA]`: every scenario key with its type, unit, default and meaning;
// `dcsim describe metrics [--markdown]`: every output metric from the metric table
// (models/ledger/metric_table.hpp) with its unit, scope, better direction and meaning.
#pragma once

#include <string>

namespace dcsim::tools {

/// The key reference for one area ("" = all). Returns false (and leaves `out` with the error) when the
/// area does not exist.
bool describe_keys(const std::string& area, std::string& out);

/// The pseudo-area of `dcsim describe` that lists the metrics instead of keys.
inline constexpr const char* METRICS_AREA = "metrics";
/// The metric table as a terminal listing.
std::string describe_metrics();
/// The metric table as Markdown: docs/metrics.md (written by tools/update-docs).
std::string metrics_markdown();

} // namespace dcsim::tools
