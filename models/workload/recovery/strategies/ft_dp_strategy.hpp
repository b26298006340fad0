// Fault-tolerant data parallelism (recovery strategy ft_dp, as torchft and fault-tolerant HSDP do): the
// job's GPUs form N data-parallel replica groups of gpus / N GPUs each, and each group lives its own life.
// A recovery swaps spares in for every down GPU of the job at once: each group it brings back spends that
// swap-in from then on, including a group whose failure is detected later (it waits for what is left).
// Loss by cause (loss_cause.hpp): the hang and the quorum stall are charged to the mode of the newest
// failure of the hang, a rejoin stall to the mode that dropped the first group rejoining; the groups' time
// out (reduced_batch) to the mechanism groups_out.
//
//   group struck ──▶ HANG: the whole job makes no progress until the failure is detected (a hang or a crash
//   is noticed only then: the failed group and the others wait on its collectives), then a stall σ
//   (stall_s) while the survivors re-form their quorum; both in the ledger's detection ──▶ the job trains
//   with the N − k groups left (k out) ──▶ the group's failures detected and its own GPUs back (a spare
//   swapped in, a repair, a standby) ──▶ the group alone spends the swap-in and pre-flight time the
//   recovery took, then catches up from its peers (catchup_s, or catchup_gb over catchup_gbps) ──▶
//   REJOIN: the whole job stalls ρ (rejoin_s, ledger restart) while the quorum grows, then N − k + 1.
// A failure striking while the job is in a hang or stall extends the hang to its own detection (the job
// stalls over the union of [failure, detection + σ) of the failures of running groups). A failure of a
// group already out stalls no one; it only keeps that group out until it too is detected and its GPUs are
// back (a group catching up starts again). A failure leaving fewer than min_groups groups running, or
// striking while the job does not train (a restart, a planned stop's write), interrupts the job as a whole
// (the restart path, training_job.hpp); the restart brings every group back.
//
// Progress and ledger (training_job.hpp): with k of N groups out the job makes progress at (N − k)/N of
// its paced rate; the out groups' share of the held GPU-time is REDUCED_BATCH (waiting for detection or
// repair, swapping in, checking and catching up alike); the hang and the quorum stall are DETECTION, the
// rejoin stall RESTART, for every GPU of the job. The paused failure clock (/failures/clock
// paused_during_recovery) pauses strikes only while the whole job recovers: during a hang, a stall or a
// group's absence the clock runs, and a strike on an out group's GPUs keeps that group out longer.
//
// Long-run goodput with independent groups (G groups, rate λ each, detection d, stall σ, group down time
// D = d + repair, ρ = 0, tests/integration/ft_dp_test.cpp derives it): A·(1 − A·λ·(d + σ))^(G − 1), with
// A = 1 / (1 + λ·D) each group's availability.
//
// Groups are contiguous in the job's data-parallel index: a job with a model (parallelism tp, cp, dp, pp;
// rank r = tp_i + tp·(cp_i + cp·(dp_i + dp·pp_i))) has group (dp_i ÷ (dp/N)), and N must divide dp
// (default N = dp); a measured job is all data-parallel, its group is rank ÷ (gpus/N), and N is required.
// Ranks are the allocator's order (sched/allocator.hpp: job_gpus), in which a replacement GPU takes the
// rank of the one it replaces. Sources: torchft (github.com/pytorch/torchft, "Fault Tolerant HSDP"); the
// stall and rejoin defaults (30 s) are assumptions of the order torchft reports for a quorum change.
// This header holds only the parameters (tests and reports read them); the class, its keys, their decoder
// and its registry entry are in ft_dp_strategy.cpp.
#pragma once

#include "models/workload/recovery_spec.hpp"

namespace dcsim::workload {

struct FtDpParams final : StrategyParams {
  int replica_groups = 2; ///< N
  int min_groups = 1;     ///< fewest groups that keep training; fewer: a full restart
  double stall_s = 30;    ///< σ: whole-job stall after the hang's detection while the quorum re-forms
  double rejoin_s = 30;   ///< ρ: whole-job stall when groups rejoin
  double catchup_s = 0;   ///< the rejoining group alone restores its state from peers this long
  /// Ranks per data-parallel index (tp·cp with a model, 1 without) and the data-parallel degree (dp with a
  /// model, gpus without): group of rank r = ((r ÷ inner) mod dp) ÷ (dp / N).
  int inner_ranks = 1;
  int dp = 2;
  int group_of_rank(int rank) const { return ((rank / inner_ranks) % dp) / (dp / replica_groups); }
};

} // namespace dcsim::workload
