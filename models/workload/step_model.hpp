// Step time and MFU of a transformer training job: an engine-free model, calibrated on Megatron-LM SC'21.
//
// One training step of a job (model, parallelism, GPU kind) on healthy or degraded GPUs and network is
//
//   step_time_s = compute_s + bubble_s + tp_s + pp_s + dp_s + cp_s + ep_s + optimizer_s
//
// built from the time of one micro-batch on the slowest pipeline stage (the last: ceil(L/pp) layers and
// the logits). Notation as in transformer_flops.hpp and memory_footprint.hpp; t = tp, v = virtual_stages,
// m = global_batch ÷ (dp·micro_batch) micro-batches, T = micro_batch·s/cp tokens per micro-batch and GPU,
// F = F_layer, R = recomputed FLOPs per token and layer (F full, 4sh selective, 0 none),
// P = peak FLOP/s at the job's precision, η_c = compute_efficiency_frac, B_hbm = HBM bandwidth,
// η_m = hbm_efficiency_frac, g = gpu_speed_frac (clock of the slowest GPU ÷ nominal: throttling).
//
// Compute of one layer and micro-batch (GEMMs at η_c of the peak, then the bandwidth-bound element-wise
// kernels — norms, softmax, dropout, activations, residuals — at η_m of the HBM bandwidth):
//   gemm_s    = T·(3F + R) / t / (P·η_c·g)
//   memory_s  = κ·(3·A + A_r) / (B_hbm·η_m·g)
//               A = bytes of activations the layer's forward writes (memory_footprint.hpp, Korthikanti et
//               al.); A_r = A (full), the attention scores (selective), 0 (none); κ = 2 bytes moved per
//               byte written (written once, read once) per pass, 3 passes (forward, backward ≈ 2) plus the
//               recomputed forward. This term is what makes small models less efficient than large ones
//               (A grows as h, GEMM FLOPs as h²) and tensor parallelism without sequence parallelism costly
//               (the 10h replicated part is not divided by t).
//   stage_s   = ceil(L/pp)·(gemm_s + memory_s) + T·3·2hV / t / (P·η_c·g)    (last stage: + logits)
// Communication of one micro-batch (CommModel, comm_model.hpp; all exposed, not overlapped, as in
// Megatron-LM without communication overlap):
//   tp_mb_s   = ceil(L/pp)·c·X_tp, c = 4 all-reduces per layer (2 forward, 2 backward; + 2 with full
//               recomputation), X_tp an all-reduce of T·h·2 bytes over tp (with sequence parallelism a
//               reduce-scatter + all-gather of the same tensor instead)  (Narayanan et al. §3.2;
//               Korthikanti et al. §4.2.2)
//   ep_mb_s   = ceil(L/pp)·c·all_to_all(f·T·k·h·2 [/t with sequence parallelism]) over ep  (MoE dispatch and
//               combine, forward and backward). f = expert load imbalance: the rank holding the busiest
//               expert (share s of the routed tokens, E experts, E/ep per rank, the others sharing 1 − s
//               evenly) receives in dispatch, and sends in combine, f = ep·(s + (E/ep − 1)·(1 − s)/(E − 1))
//               times the mean; the all-to-all ends when it has, so its bandwidth term scales by f (its
//               latency does not). f = 1 at s = 1/E. When tp·ep spans several NVLink domains the group's
//               all-to-all crosses the fabric ((n − k)/n of S over the NICs; comm_model.hpp).
//   cp_mb_s   = ceil(L/pp)·((1 + full)·all_gather + reduce_scatter) of the sequence's K and V,
//               micro_batch·s·2·h_kv·2/t bytes per rank (Llama 3's all-gather context parallelism,
//               Dubey et al. 2024 §3.3.2)
//   pp_mb_s   = 2·v·send_recv(T·h·2/t) for pp > 1: an activation forward and a gradient backward per model
//               chunk (scatter-gather optimisation: each of the t ranks sends 1/t; Narayanan et al. §4.1)
//   mb_s      = stage_s + tp_mb_s + ep_mb_s + cp_mb_s + pp_mb_s
// Step:
//   compute_s = m·stage_s, tp_s = m·tp_mb_s, ep_s = m·ep_mb_s, cp_s = m·cp_mb_s, pp_s = m·pp_mb_s
//   bubble_s  = (pp − 1)/v · mb_s              (1F1B, interleaved when v > 1; Narayanan et al. §2.2)
//               so that with an idle-free network bubble_s / compute_s = (pp − 1)/(v·m).
//   dp_s      = exposed gradient reduction and ZeRO weight gathers over dp·cp (dense weights, 2 bytes per
//               parameter on the GPU) and over dp·cp/ep (expert weights):
//               zero 0: all-reduce;  zero 1-2: reduce-scatter + all-gather;  zero 3: reduce-scatter per step
//               and (2 + full) all-gathers of the stage's weights per micro-batch.
//               With overlap_grad_reduce the reduction hides behind the backward of the last micro-batch,
//               stage_s·(2F + R)/(3F + R): exposed = max(0, reduction − window); with overlap_param_gather
//               the gathers hide behind the forward of a micro-batch, stage_s·F/(3F + R) (zero 3: stage_s
//               per micro-batch). Without overlap, all of it is exposed.
//   optimizer_s = 28 bytes per parameter held in the optimizer shard (read bf16 gradient and fp32 master,
//               m, v; write fp32 master, m, v and bf16 weight) ÷ (B_hbm·η_m·g)
// Outputs: model/hardware FLOP/s per GPU = model/hardware FLOPs per step ÷ (step_time_s · GPUs);
// mfu_frac = model FLOPs per step ÷ (step_time_s · GPUs · P), hfu_frac the same with hardware FLOPs.
//
// State: the step depends on the job (fixed) and on StepState = {gpu_speed_frac, the CommModel's
// state_signature()} (bandwidth per GPU healthy or degraded, failed planes, throttled clocks). evaluate()
// computes each state once and caches it under that signature.
//
// Calibration: compute_efficiency_frac and hbm_efficiency_frac of a100-80g are fitted so that every row
// of SC'21 Table 1 is predicted within ±10% (tests/unit/workload/step_model_test.cpp; README.md,
// "Step-time model"). Not modelled: kernel launch gaps, data loading, stragglers within a healthy job,
// load imbalance between experts beyond its all-to-all (the busiest expert's compute), overlap of TP/EP/CP communication with compute.
#pragma once

#include "models/hardware/spec.hpp"
#include "models/fabric/comm_model.hpp"
#include "models/workload/memory_footprint.hpp"
#include "models/workload/transformer_spec.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace dcsim::workload {

// The collective vocabulary every job's pace speaks (fabric/comm_model.hpp: it needs only hardware/, so it
// sits below both the fabric's model of it and the workloads).
using fabric::alpha_beta_params;
using fabric::AlphaBetaCommModel;
using fabric::Collective;
using fabric::CommGroup;
using fabric::CommModel;
using fabric::GroupAxis;

/// κ: bytes of HBM traffic per byte of activation written, per pass (written once, read once).
inline constexpr double ELEMENTWISE_TRAFFIC_PER_BYTE = 2.0;
/// Adam step: bytes moved per parameter of the optimizer shard.
inline constexpr double ADAM_BYTES_PER_PARAM = 28.0;

struct StepBreakdown {
  double compute_s = 0;   ///< m × stage compute (GEMMs and element-wise kernels)
  double bubble_s = 0;    ///< pipeline fill and drain
  double tp_s = 0;        ///< exposed tensor-parallel collectives (NVLink)
  double pp_s = 0;        ///< exposed pipeline point-to-point transfers
  double dp_s = 0;        ///< exposed gradient reduction and ZeRO gathers
  double cp_s = 0;        ///< exposed context-parallel K/V exchange
  double ep_s = 0;        ///< exposed expert-parallel all-to-all
  double optimizer_s = 0; ///< optimizer step (HBM-bound)
  double step_time_s = 0;

  long long micro_batches = 0;
  int gpus = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  double peak_tflops = 0; ///< per GPU at the job's precision
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu_frac = 0;
  double hfu_frac = 0;
  MemoryFootprint memory;
};

/// f above: how much longer the busiest expert-parallel rank's all-to-all traffic is than the mean
/// (1 for balanced routing, hot_share = 1/experts, or ep = 1).
double expert_imbalance_factor(int experts, int ep, double hot_share);

/// What a step depends on beyond the job itself.
struct StepState {
  double gpu_speed_frac = 1.0;      ///< clock of the job's slowest GPU ÷ nominal
  std::uint64_t comm_signature = 0; ///< CommModel::state_signature()
  auto operator<=>(const StepState&) const = default;
};

class StepModel {
public:
  /// `comm` must outlive the StepModel.
  StepModel(ModelJobSpec job, const hardware::HardwareSpec& hardware, const CommModel& comm);

  /// The step in the CommModel's current state with the slowest GPU at `gpu_speed_frac` of its clock;
  /// computed once per state, then served from the cache.
  const StepBreakdown& evaluate(double gpu_speed_frac = 1.0);
  /// The same without the cache.
  StepBreakdown compute(double gpu_speed_frac = 1.0) const;
  std::size_t cached_states() const { return cache_.size(); }

  const ModelJobSpec& job() const { return job_; }
  /// The communication groups of the job as the step model places them (for fabric models and tests).
  CommGroup group(GroupAxis axis) const;
  /// The groups of every axis (what a fabric model probes together).
  std::vector<CommGroup> groups() const;

private:
  ModelJobSpec job_;
  hardware::GpuSpec gpu_;
  int domain_gpus_;
  const CommModel* comm_;
  std::map<StepState, StepBreakdown> cache_;

  /// One micro-batch's TP, EP, CP and PP communication, s (the terms of tp_mb_s .. pp_mb_s above).
  struct MicroBatchComm {
    double tp_s = 0, ep_s = 0, cp_s = 0, pp_s = 0;
  };
  MicroBatchComm micro_batch_comm(double tokens, double layers) const;
  /// dp_s: gradient reduction and ZeRO gathers left exposed, for a stage of `stage_s` per micro-batch
  /// (`f`, `r`: forward and recomputed FLOPs per token and layer, which split the stage into windows).
  double data_parallel_s(double stage_s, double micro_batches, double f, double r) const;
};

/// The healthy step of a model-derived job on a scenario's hardware with the alpha-beta network
/// (alpha_beta_params). With a fabric, World plays the collectives on it instead (FabricCommModel).
StepBreakdown healthy_step(const ModelJobSpec& job, const hardware::HardwareSpec& hardware, double scale_out_gbps = 0);

} // namespace dcsim::workload
