// Serving performance of one model instance: memory, decode step, prefill, the operating curve.
//
// An instance is `tp` GPUs per pipeline stage times `pp` stages. Attention is tensor parallel over the
// tp GPUs, or data parallel (`attention_dp`: each GPU holds the attention weights whole and its own
// requests' KV cache). Routed experts are split over `ep` groups (ep divides tp), each expert tensor
// parallel over tp/ep; attention_dp needs ep = tp (TensorRT-LLM's "DEP"). Symbols: L layers (L_s = L/pp
// per stage), h hidden, b_w bytes per weight (bf16 2, fp8 1, fp4 0.5625 with its FP8 scale per 16
// elements), b_kv bytes per KV element, B requests in flight, T = B/pp tokens per stage step.
//
// Memory per GPU:  W_g = [P_dense·b_w + V·h·2·2] / (attention_dp ? 1 : tp) / pp + P_experts·b_w / tp / pp
//                  M_kv = kv_cache_frac · (M_hbm − W_g − runtime_gb)
// KV bytes per request per GPU: kv_tok·kv_tokens(L_res)/pp × share, share = 1 (attention_dp or MLA: the
//   latent is not split by TP) else max(1, n_kv/tp)/n_kv; L_res = ISL + OSL (the engine reserves a
//   request's whole length). Largest batch B_max = min(⌊M_kv / that⌋ · ranks, max_batch_per_rank · ranks),
//   ranks = tp with attention_dp, else 1.
// Decode step of one stage (a roofline per operation, summed):
//   t_w    = max(bytes_w / (BW·η_m), 2·P_lin·T/(tp·pp) / (F_w·η_c))   bytes_w: dense part + experts touched,
//            each local expert touched with probability 1 − (1 − k/E)^T
//   t_kv   = max(bytes_kv / (BW·η_kv), F_attn / (F_bf16·η_c))         over the requests' mean context
//            c̄ = ISL + OSL/2
//   t_comm = per layer: tp all-reduces (2 with attention TP) of T·h·2 bytes, ring 2(tp−1)/tp·S/(B·η) + α,
//            or with attention_dp an all-to-all dispatch (T/tp·k·h·b_a·(1−1/tp), b_a fp8 or bf16) and combine
//            (bf16); over NVLink inside one domain, over the NIC when tp exceeds it
//   t_step = t_w + t_kv + t_comm + L_s·layer_overhead + step_overhead;  TPOT_dec = pp·t_step(T)
// Prefill, per token (compute-bound): c_pf = [2·P_lin + F_attn·ISL/2] / (N·F·η_c) + comm per token.
// Aggregated continuous batching with chunked prefill (Sarathi-Serve): in steady state each step carries
// B decodes and B·ISL/OSL prefill tokens, so TPOT = TPOT_dec + B·ISL/OSL·c_pf; output tokens/s per GPU =
// B / (TPOT·N); tokens/s per user = 1/TPOT; TTFT = ⌈ISL/chunk⌉ steps of (TPOT_dec + chunk·c_pf), chunk =
// max_num_tokens − B. Not modelled: speculative decoding / MTP, prefix caching, expert load imbalance,
// CUDA-graph padding, power or clock limits, KV offload, overlap of communication with compute.
#pragma once

#include "models/hardware/spec.hpp"
#include "models/serving/efficiency.hpp"
#include "models/serving/gpu_figures.hpp"
#include "models/serving/model_shape.hpp"

#include <string>
#include <vector>

namespace dcsim::serving {

struct InstanceConfig {
  int tp = 1;
  int ep = 1;
  int pp = 1;
  bool attention_dp = false;
  hardware::Precision weights = hardware::Precision::FP8;
  double kv_bytes = 1; ///< bytes per KV-cache element (fp8 1, bf16 2)

  int gpus() const { return tp * pp; }
  std::string label() const; ///< e.g. "DEP8 fp4" or "TP4 PP2 fp8"
};

/// Why an instance configuration cannot serve a model on a GPU (empty: it can).
std::string check_instance(const ModelShape& model, const InstanceConfig& cfg, const GpuFigures& gpu);

double weight_bytes_per_param(hardware::Precision precision);

struct StepTimes {
  double weights_s = 0, kv_s = 0, comm_s = 0, overhead_s = 0;
  double total_s() const { return weights_s + kv_s + comm_s + overhead_s; }
};

struct OperatingPoint {
  int batch = 0;                        ///< requests in flight on the instance
  double tpot_s = 0;                    ///< time per output token, prefill interference included
  double decode_step_s = 0;             ///< decode-only step (disaggregated decode's TPOT)
  double ttft_s = 0;                    ///< prefill of one request at this batch, no queueing
  double tokens_per_s_per_user = 0;     ///< 1 / tpot_s
  double output_tokens_per_s_per_gpu = 0;
  double kv_util_frac = 0;              ///< share of the KV capacity held
};

struct OperatingCurve {
  InstanceConfig config;
  int isl = 0, osl = 0;
  double weights_gb_per_gpu = 0;
  double kv_gb_per_gpu = 0;
  int max_batch = 0;                    ///< 0: the weights do not fit
  double prefill_s_per_token = 0;       ///< c_pf, instance seconds per prefill token
  double prefill_tokens_per_s_per_gpu = 0; ///< a prefill-only instance at full chunks
  std::vector<OperatingPoint> points;   ///< batch 1, 2, 4, ... and B_max
};

class PerfModel {
public:
  PerfModel(ModelShape model, InstanceConfig config, GpuFigures gpu, Efficiency eff);

  double weights_bytes_per_gpu() const;
  double kv_capacity_bytes_per_gpu() const;
  double kv_bytes_per_request_per_gpu(double tokens) const;
  /// Largest batch for requests of `isl` + `osl` tokens (0 when the weights leave no room).
  int max_batch(int isl, int osl) const;
  /// One decode step of the whole instance (pp stages) at `batch` requests of mean context `ctx`.
  StepTimes decode_step(int batch, double ctx) const;
  /// Instance seconds per prefill token of a prompt of `isl` tokens (compute and communication).
  double prefill_s_per_token(int isl) const;
  /// Time to first token of one prompt on an idle instance (chunks of max_num_tokens).
  double prefill_s(int isl) const;
  /// The operating point at `batch` (aggregated serving of isl/osl requests).
  OperatingPoint point(int batch, int isl, int osl) const;
  OperatingCurve curve(int isl, int osl) const;

  const ModelShape& model() const { return model_; }
  const InstanceConfig& config() const { return cfg_; }
  const GpuFigures& gpu() const { return gpu_; }
  const Efficiency& efficiency() const { return eff_; }

private:
  ModelShape model_;
  InstanceConfig cfg_;
  GpuFigures gpu_;
  Efficiency eff_;

  double allreduce_s(double bytes) const;
  double all_to_all_s(double bytes_out) const;
  double comm_per_layer_s(double tokens) const;
  double kv_share() const;
  int ranks() const { return cfg_.attention_dp ? cfg_.tp : 1; }
};

} // namespace dcsim::serving
