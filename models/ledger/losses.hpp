// Loss by cause (losses.csv; models/workload/loss_cause.hpp has where each cause comes from).
//
// Each job's held GPU-time ("paid": every GPU-µs it holds, whatever the state) is split by (ledger state,
// cause); causes are the failure modes (with their failure domain) and the mechanisms no failure
// triggers (productive, checkpoint_write, slowdown, groups_out, planned_stop, launch, rescheduled; domain
// empty). Exactness: the job charges integer GPU·µs to (state, cause) alongside the state itself, so per
// job and state the rows' gpu_us sum to the state's GPU·µs exactly, and the state's GPU-hours in
// ledger.csv / replicas.csv are that integer converted once (to_gpu_hours). Each row's gpu_h is its own
// gpu_us converted once; share_of_paid_frac = gpu_us ÷ the job's held GPU·µs. The "cluster" rows sum the
// jobs' cells per (state, cause) (training jobs only: idle, repair, spare and inference time are no job's).
#pragma once

#include "models/ledger/replica_result.hpp"

#include <string>
#include <vector>

namespace dcsim::workload {
class TrainingJob;
}

namespace dcsim::ledger {

struct LossRow {
  std::string job, cause, domain, state;
  workload::GpuTicks gpu_us = 0;
  double gpu_h = 0;
  double share_of_paid_frac = 0;
};

/// A column of losses.csv (its name, unit and meaning: `dcsim describe metrics`, docs/metrics.md).
struct LossColumn {
  const char* name;
  const char* unit;
  const char* meaning;
};
const std::vector<LossColumn>& loss_columns();
/// The meaning of each mechanism (workload::Mechanism order), for the same documentation.
const std::vector<const char*>& mechanism_meanings();

/// The job's non-zero (state, cause) cells, state then cause order (for JobOutcome::losses).
std::vector<LossCell> loss_cells(const workload::TrainingJob& job);
/// The name and the failure domain ("" for a mechanism) of cause `cause` of a replica's jobs.
std::string loss_cause_name(const ReplicaResult& r, int cause);
std::string loss_cause_domain(const ReplicaResult& r, int cause);
/// Every job's rows, in job order, then the "cluster" rows (when there is a training job).
std::vector<LossRow> loss_rows(const ReplicaResult& r);

} // namespace dcsim::ledger
