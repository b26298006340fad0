// The metric table: every metric of summary.csv / replicas.csv declared once (docs/architecture.md), with its
// unit, scope, better direction and meaning. replica_result.cpp computes the values; everything else
// that needs to know about a metric reads it here:
//   - replicas.csv's metric columns are the table's names, in table order (tools/dcsim/outputs.cpp);
//   - `dcsim compare` takes each metric's direction from it (metric_direction below);
//   - `dcsim describe metrics [--markdown]` lists it, and docs/metrics.md is generated from that;
//   - the summary table that `dcsim run` prints shows the metrics marked on_terminal.
// A computed metric that is not in the table is a programmer error: formatting a replica's rows throws,
// and tests/unit/ledger/metric_table_test.cpp runs small scenarios and checks every emitted metric is
// declared with a matching scope.
//
// Directions: `dcsim compare` flags a regression only on metrics with a direction: a candidate is worse
// when a HIGHER metric went down or a LOWER metric went up. Metrics that describe the input or a policy
// choice (checkpoint interval, expected MTBF, idle or spare GPU-time held by design) have NONE: they are
// reported and compared, but never fail a comparison.
//
// Families: the ledger_<state>_gpu_h metrics are declared once per family of ledger states (job states,
// from workload::JobTime through an exhaustive switch, so a new state cannot be forgotten; service
// states; cluster-only categories) and expanded to one entry per state; each entry names its family.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::ledger {

enum class Better { HIGHER, LOWER, NONE };

/// Which rows of the outputs carry a metric: a training job's, the "cluster" row, an inference
/// service's, both a job's and the cluster's, or all three (the cost lines).
enum class MetricScope { JOB, CLUSTER, SERVICE, JOB_AND_CLUSTER, ALL };

struct MetricDef {
  std::string name;    ///< as in the CSV files; the unit is part of it
  std::string unit;    ///< "fraction", "count", "s", "h", "GPU-h", "tokens/s", "kWh", ...
  MetricScope scope;
  Better better;
  std::string meaning; ///< one sentence
  std::string family;  ///< pattern it was expanded from (e.g. "ledger_<job state>_gpu_h"); empty: none
  bool on_terminal = false; ///< in the summary table `dcsim run` prints (every metric is in the files)
};

/// Every metric, in replicas.csv column order.
const std::vector<MetricDef>& metric_table();
/// The declaration of a metric; nullptr when it is not declared.
const MetricDef* find_metric(std::string_view name);

/// The declared direction of a metric; nullopt when the metric is not declared (e.g. read from the
/// files of an older or newer dcsim; treated as NONE).
std::optional<Better> metric_direction(std::string_view metric);
std::string_view better_name(Better better); ///< "higher", "lower", "none"
std::string_view scope_name(MetricScope scope); ///< "job", "cluster", "service", "job+cluster", "all"
/// True when a metric of `scope` belongs on a row of kind `row` (JOB, CLUSTER or SERVICE).
bool scope_covers(MetricScope scope, MetricScope row);

} // namespace dcsim::ledger
