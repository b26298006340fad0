// A training job's recovery strategy (/jobs/*/recovery).
//
// restart (the default): the job is synchronous; a failure of any of its GPUs interrupts it, the work
// since its last checkpoint is lost (rework), and it detects, recovers and restarts as a whole
// (training_job.hpp).
//
// ft_dp, fault-tolerant data parallelism (as torchft and fault-tolerant HSDP do): the job's GPUs form
// `replica_groups` data-parallel replica groups of gpus / N GPUs each. A failure that strikes GPUs of k
// groups drops those groups: the job loses no work, stalls `stall_s` while the survivors re-form their
// quorum, then goes on with the N − k groups left (a global batch (N − k)/N as large: progress at that
// share of full speed). Once every failure that struck the job is detected and its down GPUs are
// replaced (a spare, or a repair), the dropped groups rejoin after a stall of `rejoin_s` (they load the
// weights from a live peer). A failure that would leave fewer than `min_groups` groups running takes the
// restart path. Sources: torchft (github.com/pytorch/torchft, "Fault Tolerant HSDP"); the stall and
// rejoin defaults (30 s) are assumptions of the order torchft reports for a quorum change and a live
// peer recovery.
//
// Groups are contiguous in the job's data-parallel index: a job with a model (parallelism tp, cp, dp,
// pp; rank r = tp_i + tp·(cp_i + cp·(dp_i + dp·pp_i))) has group (dp_i ÷ (dp/N)), and N must divide dp
// (default N = dp: one group per data-parallel replica); a measured job is all data-parallel, its group
// is rank ÷ (gpus/N), and N is required. Ranks are the allocator's order (sched/allocator.hpp:
// job_gpus), in which a replacement GPU takes the rank of the one it replaces.
#pragma once

#include "sim/json_reader.hpp"

namespace dcsim::workload {

enum class RecoveryStrategy { RESTART, FT_DP };

struct RecoverySpec {
  RecoveryStrategy strategy = RecoveryStrategy::RESTART;
  int replica_groups = 0; ///< ft_dp: N (0 with restart)
  int min_groups = 1;     ///< ft_dp: fewest groups that keep training; fewer: a full restart
  double stall_s = 30;    ///< ft_dp: whole-job stall when groups drop (the quorum re-forms)
  double rejoin_s = 30;   ///< ft_dp: whole-job stall when dropped groups rejoin
  /// ft_dp: ranks per data-parallel index (tp·cp with a model, 1 without) and the data-parallel degree
  /// (dp with a model, gpus without): group of rank r = ((r ÷ inner) mod dp) ÷ (dp / N).
  int inner_ranks = 1;
  int dp = 0;

  bool fault_tolerant() const { return strategy == RecoveryStrategy::FT_DP; }
  /// The replica group of job rank `rank` (ft_dp only).
  int group_of_rank(int rank) const { return ((rank / inner_ranks) % dp) / (dp / replica_groups); }
};

const sim::KeyTable& recovery_keys();

struct ModelJobSpec;
/// Decodes /jobs/*/recovery of a training job of `gpus` GPUs (model: its parallelism, or null).
RecoverySpec decode_recovery(const sim::Node& job, int gpus, const ModelJobSpec* model, double min_gpus_frac);

} // namespace dcsim::workload
