// The output files of a run (docs/architecture.md), each with its columns declared once.
//
//   summary.csv     scenario,job,metric,mean,ci95_low,ci95_high,replicas
//   replicas.csv    replica,job,<every metric>
//   ledger.csv      replica,job,state,gpu_hours
//   causes.csv      replica,job,cause,failures,interruptions,mttr_h
//   losses.csv      replica,job,cause,domain,state,gpu_us,gpu_h,share_of_paid_frac (models/ledger/losses.hpp:
//                   per job and state the gpu_us sum exactly to the state's ledger GPU·µs)
//   events.csv      replica,time_s,kind,component,scope,job,detail
//   timeseries.csv  replica,time_s,entity,gauge,value
//   racks.csv       replica,rack,loop,availability_frac,down_gpu_h,failures (loop: empty without cooling;
//                   availability_frac = 1 − down GPU-hours ÷ (rack GPUs × duration))
//   fabric_utilisation.csv, fabric_utilisation_series.csv  scenarios with a fabric only: link utilisation
//                   per tier (models/ledger/utilisation_columns.hpp, models/fabric/link_utilisation.hpp)
// Rows are in replica order, then job order (scenario order, then "cluster"), so files are identical
// for identical runs whatever the parallelism. Files are written to temporary names and renamed.
#pragma once

#include "models/cost/run_cost.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/scenario.hpp"
#include "sim/compressed_file.hpp"
#include "sim/csv.hpp"
#include "sim/stats.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dcsim::tools {

const sim::CsvSchema& summary_schema();
const sim::CsvSchema& replicas_schema();
const sim::CsvSchema& ledger_schema();
const sim::CsvSchema& causes_schema();
const sim::CsvSchema& losses_schema();
const sim::CsvSchema& events_schema();
const sim::CsvSchema& timeseries_schema();
const sim::CsvSchema& racks_schema();
const sim::CsvSchema& utilisation_schema();
const sim::CsvSchema& utilisation_series_schema();

/// Per-replica rows of the per-replica files.
struct ReplicaRows {
  std::string replicas, ledger, causes, events, timeseries, racks, losses;
  std::string utilisation, utilisation_series; ///< scenarios with a fabric
};
/// `cost`: the design's prices and bill (World::cost()); nullptr: no cost metrics (no /cost block).
ReplicaRows format_replica_rows(const Scenario& scenario, const ledger::ReplicaResult& result,
                                const cost::CostModel* cost = nullptr);

/// What the outputs need of one replica: its rows of the per-replica files and its metrics.
struct ReplicaOutputs {
  ReplicaRows rows;
  std::vector<std::pair<std::string, ledger::Metrics>> metrics; ///< per entity, in output order
};
ReplicaOutputs replica_outputs(const Scenario& scenario, const ledger::ReplicaResult& result,
                               const cost::CostModel* cost = nullptr);

struct RunSummary {
  /// entity -> (metric, summary) in output order; entities in output order.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, sim::Summary>>>> entities;
};
RunSummary summarize_replicas(const std::vector<ReplicaOutputs>& replicas);

/// Writes every output file into `dir` (created if needed); compressed, each CSV file is NAME.csv.gz or
/// NAME.csv.zst (sim/compressed_file.hpp).
void write_outputs(const std::filesystem::path& dir, const Scenario& scenario,
                   const std::vector<ReplicaOutputs>& replicas, const RunSummary& summary,
                   sim::Compression compression = sim::Compression::NONE);

/// The human-readable summary table printed by `dcsim run`.
std::string summary_table(const Scenario& scenario, const RunSummary& summary, int gpus);

} // namespace dcsim::tools
