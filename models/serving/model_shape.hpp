// The shape of a served model: what decides its weights, FLOPs per token and KV cache per token.
//
// A decoder-only transformer, dense or mixture of experts (MoE), with grouped-query attention (GQA) or
// DeepSeek's multi-head latent attention (MLA). Parameter counts (linear layers; norms ignored):
//   GQA attention per layer  h·(n_h·d_h) + 2·h·(n_kv·d_h) + (n_h·d_h)·h
//   MLA attention per layer  h·r_q + r_q·n_h·(d_nope + d_rope) + h·(r_kv + d_rope)
//                            + r_kv·n_h·(d_nope + d_v) + n_h·d_v·h          (r_q = 0: h·n_h·(d_nope + d_rope))
//   dense FFN (SwiGLU)       3·h·f                                   (the first `dense_layers` of an MoE too)
//   MoE layer                (E + E_shared)·3·h·f_e + h·E (router); active (k + E_shared)·3·h·f_e + h·E
//   embeddings               V·h in, V·h out (untied)
// KV cache per token (all layers): GQA 2·n_L·n_kv·d_h·b_kv; MLA n_L·(r_kv + d_rope)·b_kv (the latent).
// Sliding-window layers (`window_layers` of them, GPT-OSS style) keep at most `window_tokens` tokens.
// Attention FLOPs per (query token, context token) per layer: GQA 4·n_h·d_h (QKᵀ and PV); MLA with the
// absorbed up-projections 2·n_h·(r_kv + d_rope) + 2·n_h·r_kv (DeepSeek-V3 report, arXiv 2412.19437).
// Presets: deepseek-r1 (DeepSeek-V3/R1 config.json: 671B total, 37B active), qwen3-235b-a22b, gpt-oss-120b
// and llama3-70b, each from its published Hugging Face config.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::serving {

enum class AttentionKind { GQA, MLA };

struct ModelShape {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;      ///< GQA: key/value heads
  int head_dim = 0;      ///< GQA: dimension of a head
  AttentionKind attention = AttentionKind::GQA;
  int q_lora_rank = 0;   ///< MLA: query compression rank (0: none)
  int kv_lora_rank = 0;  ///< MLA: latent KV dimension r_kv
  int rope_dim = 0;      ///< MLA: decoupled rotary dimension d_rope
  int nope_dim = 0;      ///< MLA: per-head non-rotary query/key dimension
  int v_head_dim = 0;    ///< MLA: per-head value dimension
  int ffn = 0;           ///< dense FFN hidden size (dense models and an MoE's dense layers)
  int experts = 0;       ///< routed experts (0: dense)
  int active_experts = 0;
  int shared_experts = 0;
  int expert_ffn = 0;    ///< hidden size of one expert
  int dense_layers = 0;  ///< MoE: leading layers with a dense FFN
  int vocab = 0;
  int window_tokens = 0; ///< sliding window of the windowed layers (0: none)
  int window_layers = 0; ///< how many layers use the sliding window

  bool moe() const { return experts > 0; }
  int moe_layers() const { return moe() ? layers - dense_layers : 0; }
  double attention_params_per_layer() const;
  double expert_params() const;         ///< one expert's parameters
  double expert_params_total() const;   ///< every routed expert of every MoE layer
  double dense_params() const;          ///< all but routed experts and embeddings (attention, dense FFN, shared experts, routers)
  double embedding_params() const;      ///< input embedding and output head
  double total_params() const;
  double active_params() const;         ///< per token: dense + k routed experts per MoE layer + embeddings
  double active_linear_params() const;  ///< active params whose FLOPs run per token (the output head, not the input lookup)
  /// KV-cache bytes per token over all layers at `kv_bytes` per element (context `ctx` matters for windows).
  double kv_bytes_per_token(double kv_bytes) const;
  /// Mean KV elements read per decode token over all layers when the context is `ctx` tokens (windows cut it).
  double kv_tokens_read(double ctx) const;
  /// Attention FLOPs per query token per context token, over all layers.
  double attention_flops_per_ctx_token() const;
};

/// A preset by name (nullptr when unknown).
const ModelShape* find_model_shape(std::string_view name);
std::vector<std::string> model_shape_names();

} // namespace dcsim::serving
