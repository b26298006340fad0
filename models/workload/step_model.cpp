#include "models/workload/step_model.hpp"

#include "models/workload/transformer_flops.hpp"

#include <algorithm>

namespace dcsim::workload {

namespace {
constexpr double FLOPS_PER_TFLOPS = 1e12;
constexpr double BYTES_PER_TB = 1e12;
} // namespace

StepModel::StepModel(ModelJobSpec job, const hardware::HardwareSpec& hardware, const CommModel& comm)
    : job_(std::move(job)), gpu_(hardware.gpu), domain_gpus_(nvlink_domain(hardware.rack).gpus), comm_(&comm) {}

double expert_imbalance_factor(int experts, int ep, double hot_share) {
  // Balanced routing is exactly 1 (not 1 ± rounding): a balanced job's step is unchanged to the bit.
  if (experts <= 1 || ep <= 1 || !(hot_share * experts > 1 + 1e-12)) return 1.0;
  const double e = experts, per_rank = e / ep;
  return std::max(1.0, ep * (hot_share + (per_rank - 1) * (1 - hot_share) / (e - 1)));
}

CommGroup StepModel::group(GroupAxis axis) const {
  const ParallelismSpec& p = job_.parallelism;
  const long long gpus = p.gpus();
  auto make = [&](int ranks, int stride) {
    ranks = std::max(1, ranks);
    return CommGroup{axis, ranks, stride, fabric::ranks_per_domain(ranks, stride, domain_gpus_), gpus / ranks};
  };
  switch (axis) {
  case GroupAxis::TP: return make(p.tp, 1);
  case GroupAxis::CP: return make(p.cp, p.tp);
  case GroupAxis::EP: return make(p.ep, p.tp);
  case GroupAxis::DP: return make(p.dp * p.cp, p.tp);
  case GroupAxis::EXPERT_DP: return make(p.dp * p.cp / std::max(1, p.ep), p.tp * p.ep);
  case GroupAxis::PP: return p.pp > 1 ? make(2, p.tp * p.cp * p.dp) : make(1, 1);
  }
  return make(1, 1);
}

std::vector<CommGroup> StepModel::groups() const {
  std::vector<CommGroup> out;
  for (GroupAxis axis : {GroupAxis::TP, GroupAxis::CP, GroupAxis::EP, GroupAxis::DP, GroupAxis::EXPERT_DP, GroupAxis::PP})
    out.push_back(group(axis));
  return out;
}

const StepBreakdown& StepModel::evaluate(double gpu_speed_frac) {
  const StepState state{gpu_speed_frac, comm_->state_signature()};
  auto it = cache_.find(state);
  if (it == cache_.end()) it = cache_.emplace(state, compute(gpu_speed_frac)).first;
  return it->second;
}

StepModel::MicroBatchComm StepModel::micro_batch_comm(double tokens, double layers) const {
  const TransformerSpec& m = job_.model;
  const ParallelismSpec& p = job_.parallelism;
  const CommModel& comm = *comm_;
  const double t = p.tp;
  const double h = m.hidden;
  const bool full = m.recompute == Recompute::FULL;
  const double per_layer = 4 + (full ? 2 : 0); // per layer: forward 2, backward 2, recomputed forward 2
  double tp_mb_s = 0;
  if (p.tp > 1) {
    const CommGroup g = group(GroupAxis::TP);
    const double bytes = tokens * h * ACTIVATION_BYTES;
    const double one = p.sequence_parallel ? comm.time_s(Collective::REDUCE_SCATTER, g, bytes) +
                                                 comm.time_s(Collective::ALL_GATHER, g, bytes)
                                           : comm.time_s(Collective::ALL_REDUCE, g, bytes);
    tp_mb_s = layers * per_layer * one;
  }
  double ep_mb_s = 0;
  if (m.moe() && p.ep > 1) {
    const double f = expert_imbalance_factor(m.experts, p.ep, m.hot_expert_share_frac);
    const double bytes = f * tokens * m.top_k * h * ACTIVATION_BYTES / (p.sequence_parallel ? t : 1.0);
    ep_mb_s = layers * per_layer * comm.time_s(Collective::ALL_TO_ALL, group(GroupAxis::EP), bytes);
  }
  double cp_mb_s = 0;
  if (p.cp > 1) {
    const CommGroup g = group(GroupAxis::CP);
    const double bytes = static_cast<double>(m.micro_batch) * m.seq_len * 2 * kv_width(m) * ACTIVATION_BYTES / t;
    cp_mb_s = layers * ((full ? 2 : 1) * comm.time_s(Collective::ALL_GATHER, g, bytes) +
                        comm.time_s(Collective::REDUCE_SCATTER, g, bytes));
  }
  double pp_mb_s = 0;
  if (p.pp > 1)
    pp_mb_s = 2.0 * p.virtual_stages *
              comm.time_s(Collective::SEND_RECV, group(GroupAxis::PP), tokens * h * ACTIVATION_BYTES / t);
  return {tp_mb_s, ep_mb_s, cp_mb_s, pp_mb_s};
}

double StepModel::data_parallel_s(double stage_s, double mbs, double f, double r) const {
  // Gradient reduction and ZeRO gathers of the weights held by this GPU.
  const TransformerSpec& m = job_.model;
  const ParallelismSpec& p = job_.parallelism;
  const CommModel& comm = *comm_;
  const bool full = m.recompute == Recompute::FULL;
  double dp_s = 0;
  const GpuParams params = gpu_params(m, p);
  const CommGroup dense = group(GroupAxis::DP);
  const CommGroup expert = group(GroupAxis::EXPERT_DP);
  auto both = [&](Collective kind) {
    return comm.time_s(kind, dense, params.dense * GRADIENT_BYTES) +
           comm.time_s(kind, expert, params.expert * GRADIENT_BYTES);
  };
  const double backward_window_s = stage_s * (2 * f + r) / (3 * f + r);
  const double forward_window_s = stage_s * f / (3 * f + r);
  auto exposed = [](double comm_s, bool overlap, double window_s) {
    return overlap ? std::max(0.0, comm_s - window_s) : comm_s;
  };
  if (p.zero == 0) {
    dp_s = exposed(both(Collective::ALL_REDUCE), p.overlap_grad_reduce, backward_window_s);
  } else if (p.zero <= 2) {
    dp_s = exposed(both(Collective::REDUCE_SCATTER), p.overlap_grad_reduce, backward_window_s) +
           exposed(both(Collective::ALL_GATHER), p.overlap_param_gather, forward_window_s);
  } else {
    const double gathers_mb_s = (full ? 3 : 2) * both(Collective::ALL_GATHER);
    dp_s = exposed(both(Collective::REDUCE_SCATTER), p.overlap_grad_reduce, backward_window_s) +
           mbs * exposed(gathers_mb_s, p.overlap_param_gather, stage_s);
  }
  return dp_s;
}

StepBreakdown StepModel::compute(double gpu_speed_frac) const {
  const TransformerSpec& m = job_.model;
  const ParallelismSpec& p = job_.parallelism;
  const double t = p.tp;
  const double tokens = tokens_per_micro_batch(m, p);
  const double layers = layers_per_stage(m, p);
  const bool full = m.recompute == Recompute::FULL;
  const double peak_flops = gpu_.peak_tflops_at(m.precision) * FLOPS_PER_TFLOPS;
  const double gemm_flops_per_s = peak_flops * gpu_.compute_efficiency_frac * gpu_speed_frac;
  const double hbm_bytes_per_s = gpu_.hbm_tb_per_s * BYTES_PER_TB * gpu_.hbm_efficiency_frac * gpu_speed_frac;

  // One layer, one micro-batch, one GPU.
  const double f = layer_forward_flops_per_token(m);
  const double r = layer_recompute_flops_per_token(m);
  const double gemm_s = tokens * (3 * f + r) / t / gemm_flops_per_s;
  const LayerActivations act = layer_activations(m, p);
  const double recomputed_bytes = full ? act.all_bytes : m.recompute == Recompute::SELECTIVE ? act.scores_bytes : 0.0;
  const double memory_s = ELEMENTWISE_TRAFFIC_PER_BYTE * (3 * act.all_bytes + recomputed_bytes) / hbm_bytes_per_s;
  const double logits_s = tokens * 3 * logits_forward_flops_per_token(m) / t / gemm_flops_per_s;
  const double stage_s = layers * (gemm_s + memory_s) + logits_s;

  const MicroBatchComm c = micro_batch_comm(tokens, layers);
  const double tp_mb_s = c.tp_s, ep_mb_s = c.ep_s, cp_mb_s = c.cp_s, pp_mb_s = c.pp_s;
  const double mb_s = stage_s + tp_mb_s + ep_mb_s + cp_mb_s + pp_mb_s;

  StepBreakdown out;
  out.micro_batches = micro_batches(m, p);
  const double mbs = static_cast<double>(out.micro_batches);
  out.compute_s = mbs * stage_s;
  out.tp_s = mbs * tp_mb_s;
  out.ep_s = mbs * ep_mb_s;
  out.cp_s = mbs * cp_mb_s;
  out.pp_s = mbs * pp_mb_s;
  out.bubble_s = (p.pp - 1.0) / p.virtual_stages * mb_s;

  out.dp_s = data_parallel_s(stage_s, mbs, f, r);

  const GpuParams params = gpu_params(m, p);
  const double dense_group = static_cast<double>(p.dp) * p.cp;
  const double optimizer_params =
      p.zero >= 1 ? params.dense / dense_group + params.expert / std::max(1.0, dense_group / p.ep) : params.total();
  out.optimizer_s = ADAM_BYTES_PER_PARAM * optimizer_params / hbm_bytes_per_s;

  out.step_time_s = out.compute_s + out.bubble_s + out.tp_s + out.pp_s + out.dp_s + out.cp_s + out.ep_s + out.optimizer_s;
  out.gpus = static_cast<int>(p.gpus());
  out.tokens_per_step = m.tokens_per_step();
  out.tokens_per_s = out.tokens_per_step / out.step_time_s;
  out.model_flops_per_step = model_flops_per_step(m);
  out.hardware_flops_per_step = hardware_flops_per_step(m);
  out.peak_tflops = peak_flops / FLOPS_PER_TFLOPS;
  const double gpu_s = out.step_time_s * out.gpus;
  out.model_tflops_per_gpu = out.model_flops_per_step / gpu_s / FLOPS_PER_TFLOPS;
  out.hardware_tflops_per_gpu = out.hardware_flops_per_step / gpu_s / FLOPS_PER_TFLOPS;
  out.mfu_frac = out.model_flops_per_step / (gpu_s * peak_flops);
  out.hfu_frac = out.hardware_flops_per_step / (gpu_s * peak_flops);
  out.memory = memory_footprint(m, p);
  return out;
}

StepBreakdown healthy_step(const ModelJobSpec& job, const hardware::HardwareSpec& hardware, double scale_out_gbps) {
  const AlphaBetaCommModel comm(alpha_beta_params(hardware, scale_out_gbps));
  return StepModel(job, hardware, comm).compute();
}

} // namespace dcsim::workload
