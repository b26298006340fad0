// Parameters and FLOPs of a decoder-only transformer (dense or mixture of experts).
//
// Notation: L layers, h hidden, f ffn_hidden, a heads, a_kv kv_heads, h_kv = a_kv·h/a (K and V width),
// s seq_len, V vocab, E experts, k top_k, f_e expert_ffn_hidden, n = 2 MLP matrices (gelu: up, down)
// or 3 (swiglu: gate, up, down). A multiply-add is 2 FLOPs. Only matrix multiplications are counted
// (norms, softmax, activations are not), as in Narayanan et al., "Efficient Large-Scale Language Model
// Training on GPU Clusters Using Megatron-LM", SC'21, §5.1 and App. A, and Chowdhery et al., "PaLM",
// 2022, App. B.
//
// Parameters:
//   attention per layer   2h² + 2h·h_kv                 (Q and output projections; K and V)
//   dense MLP per layer   n·h·f
//   MoE MLP per layer     E·n·h·f_e + h·E                (experts and router)
//   biases and norms      2h + 2h_kv (attention) + (n−1)·f + h per MLP (or per expert) + 4h (two norms)
//   embeddings            V·h, twice when input and output embeddings are not tied
// (learned position embeddings, s·h, are not counted: <0.3% of the SC'21 models). For the SC'21 GPT
// models (a_kv = a, f = 4h, gelu, tied) this is 12Lh² + 13Lh + Vh, the paper's P = 12lh²(1 + 13/12h +
// V/12lh) without its s·h position term.
//
// Forward FLOPs per token:
//   one layer      F_layer = 2·(2h² + 2h·h_kv) + 4·s·h + F_mlp
//                  F_mlp = 2·n·h·f (dense) or 2·h·E + k·2·n·h·f_e (MoE: router + k experts)
//                  4·s·h is the attention core (Q·Kᵀ and scores·V over the full sequence: the
//                  non-causal count of SC'21 and PaLM)
//   logits         F_logits = 2·h·V
// A step of B sequences processes B·s tokens; the backward pass costs twice the forward:
//   model FLOPs per step     = 3·B·s·(L·F_layer + F_logits)
//   hardware FLOPs per step  = model FLOPs + recomputation:
//                              full:      + B·s·L·F_layer      (every layer's forward again; logits not)
//                              selective: + B·s·L·4·s·h        (attention core only: Korthikanti et al.,
//                                          "Reducing Activation Recomputation in Large Transformer
//                                          Models", MLSys 2023, §5)
//                              none:      + 0
// For the SC'21 GPT models: F_layer = 24h² + 4sh, so model FLOPs = 72·B·s·L·h²·(1 + s/6h + V/12Lh) and,
// with full recomputation, hardware FLOPs = 96·B·s·L·h²·(1 + s/6h + V/16Lh) — SC'21 eq. (3), the
// figure behind the paper's TFLOP/s per GPU. MFU uses model FLOPs; HFU hardware FLOPs.
#pragma once

#include "models/workload/transformer_spec.hpp"

namespace dcsim::workload {

/// n: matrices of one MLP (2 gelu, 3 swiglu).
int mlp_matrices(const TransformerSpec& m);
/// h_kv = kv_heads × head size.
double kv_width(const TransformerSpec& m);

/// Parameters of one layer outside the experts (attention, norms, router, or the dense MLP).
double dense_params_per_layer(const TransformerSpec& m);
/// Parameters of the experts of one layer (0 for a dense model).
double expert_params_per_layer(const TransformerSpec& m);
/// Embedding parameters (input, and output when untied).
double embedding_params(const TransformerSpec& m);
double total_params(const TransformerSpec& m);
/// Parameters a token goes through (k experts of E): the "active" parameters of a MoE model.
double active_params(const TransformerSpec& m);

double layer_forward_flops_per_token(const TransformerSpec& m);
double attention_core_flops_per_token(const TransformerSpec& m);
double logits_forward_flops_per_token(const TransformerSpec& m);
/// Recomputed forward FLOPs per token and layer for the model's recompute setting.
double layer_recompute_flops_per_token(const TransformerSpec& m);

double model_flops_per_step(const TransformerSpec& m);
double hardware_flops_per_step(const TransformerSpec& m);

} // namespace dcsim::workload
