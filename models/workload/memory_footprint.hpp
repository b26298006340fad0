// Memory per GPU of a training job: weights, gradients, optimizer state and activations.
//
// Bytes per parameter (mixed-precision Adam: the 2 + 2 + 12 = 16 bytes of Rajbhandari et al., "ZeRO",
// SC'20, §3.1):
//   weights    WEIGHT_BYTES    = 2   (bf16; fp8/fp4 jobs keep bf16 weights and quantise on the fly)
//   gradients  GRADIENT_BYTES  = 2   (bf16, accumulated and reduced in bf16)
//   optimizer  OPTIMIZER_BYTES = 12  (fp32 master weights, Adam first and second moments)
// ZeRO sharding over the data-parallel group D (dense weights: dp·cp ranks; expert weights: dp·cp/ep):
//   zero 0: 2 + 2 + 12     zero 1: 2 + 2 + 12/D     zero 2: 2 + (2 + 12)/D     zero 3: (2 + 2 + 12)/D,
// and zero 3 also holds one gathered layer (2 bytes per parameter of a layer on this GPU).
// Parameters on one GPU: ceil(L/pp) layers (the fullest stage) with their dense part ÷ tp and experts ÷
// (ep·tp), plus one embedding table ÷ tp (vocabulary-parallel) on the first and on the last stage (two
// when pp = 1 and the embeddings are untied).
//
// Activations (Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
// MLSys 2023, §4, generalised to grouped-query attention, any ffn size, gated MLPs and MoE). One layer
// stores per token of a micro-batch (T = micro_batch·seq_len/cp tokens per GPU; bf16 tensors, 1-byte
// dropout masks):
//   replicated across tp (sharded too with sequence parallelism): 10h = norm inputs 4h, QKV input 2h,
//                 MLP input 2h, two dropout masks 2h
//   sharded by tp: 4h + 4h_kv (Q, K, V, projection input) + MLP: 2·n·f (dense) or k·(2h + 2·n·f_e) (MoE)
//   attention scores: 5·a·s (softmax output 2as, dropout mask as, dropout output 2as), sharded by tp;
//                 absent with flash attention
// which for GPT (a_kv = a, f = 4h, gelu) is the paper's s·b·h·(10 + 24/t + 5as/(ht)) per layer.
// Recomputation: selective drops the attention scores; full keeps only each layer's input (2h per token,
// ÷ tp with sequence parallelism) plus, during backward, one layer's full activations.
// Micro-batches in flight on the first stage: min(m, pp) with 1F1B, × (1 + (pp − 1)/(pp·v)) with the
// interleaved schedule (Korthikanti et al. §4.2.3). The last stage adds fp32 logits of one micro-batch,
// 4·T·V/tp bytes. The memory of a GPU is the larger of the first and the last stage's.
// Not modelled: CUDA context, communication buffers, allocator fragmentation (a few GB in practice).
// GB = 10^9 bytes, compared with hardware.gpu.hbm_gb as given.
#pragma once

#include "models/workload/transformer_spec.hpp"

namespace dcsim::workload {

inline constexpr double WEIGHT_BYTES = 2.0;
inline constexpr double GRADIENT_BYTES = 2.0;
inline constexpr double OPTIMIZER_BYTES = 12.0;
inline constexpr double ACTIVATION_BYTES = 2.0; ///< bf16 activations (and their gradients)

/// Micro-batches per step and pipeline: global_batch ÷ (dp × micro_batch).
long long micro_batches(const TransformerSpec& m, const ParallelismSpec& p);
/// Layers of the fullest pipeline stage: ceil(L / pp).
int layers_per_stage(const TransformerSpec& m, const ParallelismSpec& p);
/// Tokens of one micro-batch on one GPU: micro_batch × seq_len ÷ cp.
double tokens_per_micro_batch(const TransformerSpec& m, const ParallelismSpec& p);

/// Parameters held by one GPU of the fullest stage (embedding table included), split by ZeRO group.
struct GpuParams {
  double dense = 0;  ///< sharded over dp·cp by ZeRO
  double expert = 0; ///< sharded over dp·cp/ep by ZeRO
  double total() const { return dense + expert; }
};
GpuParams gpu_params(const TransformerSpec& m, const ParallelismSpec& p);

/// Bytes of activations one layer produces in its forward pass per micro-batch on one GPU (what it stores
/// without recomputation), and the part of it that is the attention scores.
struct LayerActivations {
  double all_bytes = 0;
  double scores_bytes = 0;
};
LayerActivations layer_activations(const TransformerSpec& m, const ParallelismSpec& p);
/// Bytes one layer keeps per micro-batch until its backward, given the recompute setting.
double layer_stored_bytes(const TransformerSpec& m, const ParallelismSpec& p);

struct MemoryFootprint {
  double weights_gb = 0;
  double gradients_gb = 0;
  double optimizer_gb = 0;
  double activations_gb = 0;
  double total_gb() const { return weights_gb + gradients_gb + optimizer_gb + activations_gb; }
};
MemoryFootprint memory_footprint(const TransformerSpec& m, const ParallelismSpec& p);

} // namespace dcsim::workload
