// Resource budgets checked before anything runs (issue 25): a run whose events would fill the machine's
// memory is refused up front with the key responsible, never left to die of std::bad_alloc.
//
// Estimate (an order of magnitude, deliberately generous), per replica over duration_h:
//   failures     Σ_modes units × mean unit rate (1/h) × duration_h, each ~EVENTS_PER_FAILURE events
//                (failure, detection, repair, restart...); hardware units from the layout, other
//                domains (fabric, cooling, power) counted as one unit per rack
//   checkpoints  Σ_training jobs: duration_s / max(interval_s, step_time_s), EVENTS_PER_CHECKPOINT
//                each; an "auto" interval is Daly's (optimal_interval_s) for the job's share of the
//                cluster's failure rate (gpus ÷ cluster GPUs)
//   samples      duration_s / output.timeseries_interval_s × (12 + 4 × jobs + 2 × racks with cooling)
// Memory: a live replica keeps its events (EVENT_BYTES each) in one of `parallel` processes, and the
// parent keeps every replica's events as CSV text, twice while writing (CSV_ROW_BYTES × 2 each):
//   bytes = events × (parallel × EVENT_BYTES + replicas × 2 × CSV_ROW_BYTES) (samples alike).
// A sweep's plan streams its points (sweep.hpp): it holds one point's document and decoded scenario at a
// time (text bytes × PLAN_FACTOR) and, per point, PLAN_POINT_BYTES (valid flag, run list, progress) and,
// unless sharded, the point's sweep.csv rows, held twice while sweep.csv is written:
//   bytes = text bytes × PLAN_FACTOR + points × (PLAN_POINT_BYTES + 2 × sweep.csv bytes per point).
// The budget: half the machine's memory, or half the address-space limit (ulimit -v) when lower;
// `--memory-budget-gb` sets it. Over budget: exit 3 (EXIT_NO_PROGRESS) naming the key and the figures.
#pragma once

#include "models/scenario.hpp"

#include <cstddef>
#include <string>

namespace dcsim::tools {

struct ResourceEstimate {
  double events_per_replica = 0;
  double samples_per_replica = 0;
  double bytes = 0;          ///< peak memory of the whole run
  std::string main_key;      ///< JSON pointer of the largest contribution
  std::string main_reason;   ///< "about 1.7e+08 checkpoints per replica (interval_s 0.002 s over 336 h)"
};

/// A pure function of the decoded scenario and the processes in parallel.
ResourceEstimate estimate_resources(const Scenario& scenario, int parallel);

/// The default budget (bytes): half the physical memory, or half RLIMIT_AS when lower.
double default_memory_budget_bytes();
/// `gb` > 0: gb GB; else the default.
double memory_budget_bytes(double gb);

/// "" when the run fits `budget_bytes`, else the message (without "dcsim: ").
std::string run_budget_problem(const Scenario& scenario, int parallel, double budget_bytes);
/// A summary.csv's bytes per job (and as many for the cluster's rows), for a sweep.csv estimate.
inline constexpr double SUMMARY_BYTES_PER_JOB = 2048; // 2,397 bytes for one job and the cluster (t.json)
/// "" when a plan of `points` points of a `document_bytes`-byte document, each adding
/// `sweep_csv_point_bytes` to sweep.csv (0 for a shard, which writes none), fits; else the message.
std::string sweep_plan_budget_problem(double points, std::size_t document_bytes, double sweep_csv_point_bytes,
                                      double budget_bytes);

} // namespace dcsim::tools
