#include "models/serving/model_shape.hpp"

#include <algorithm>

namespace dcsim::serving {

double ModelShape::attention_params_per_layer() const {
  const double h = hidden, nh = heads;
  if (attention == AttentionKind::MLA) {
    const double q = q_lora_rank > 0 ? h * q_lora_rank + double(q_lora_rank) * nh * (nope_dim + rope_dim)
                                     : h * nh * (nope_dim + rope_dim);
    return q + h * (kv_lora_rank + rope_dim) + double(kv_lora_rank) * nh * (nope_dim + v_head_dim) + nh * v_head_dim * h;
  }
  return 2.0 * h * nh * head_dim + 2.0 * h * kv_heads * head_dim;
}

double ModelShape::expert_params() const { return 3.0 * hidden * expert_ffn; }

double ModelShape::expert_params_total() const { return moe() ? double(moe_layers()) * experts * expert_params() : 0.0; }

double ModelShape::dense_params() const {
  double p = layers * attention_params_per_layer();
  const int dense_ffn_layers = moe() ? dense_layers : layers;
  p += dense_ffn_layers * 3.0 * hidden * ffn;
  if (moe()) p += double(moe_layers()) * (shared_experts * expert_params() + double(hidden) * experts);
  return p;
}

double ModelShape::embedding_params() const { return 2.0 * vocab * hidden; }

double ModelShape::total_params() const { return dense_params() + expert_params_total() + embedding_params(); }

double ModelShape::active_params() const {
  return dense_params() + double(moe_layers()) * active_experts * expert_params() + embedding_params();
}

double ModelShape::active_linear_params() const { return active_params() - double(vocab) * hidden; }

double ModelShape::kv_bytes_per_token(double kv_bytes) const {
  const double per_layer = attention == AttentionKind::MLA ? double(kv_lora_rank + rope_dim) : 2.0 * kv_heads * head_dim;
  return layers * per_layer * kv_bytes;
}

double ModelShape::kv_tokens_read(double ctx) const {
  if (window_tokens <= 0 || window_layers <= 0) return ctx;
  const double windowed = std::min(ctx, double(window_tokens));
  return ((layers - window_layers) * ctx + window_layers * windowed) / layers;
}

double ModelShape::attention_flops_per_ctx_token() const {
  if (attention == AttentionKind::MLA)
    return layers * (2.0 * heads * (kv_lora_rank + rope_dim) + 2.0 * heads * kv_lora_rank);
  return layers * 4.0 * heads * head_dim;
}

namespace {
// Hugging Face config.json of each model (field names in brackets).
std::vector<ModelShape> presets() {
  ModelShape r1; // deepseek-ai/DeepSeek-R1 (architecture of DeepSeek-V3)
  r1.name = "deepseek-r1";
  r1.layers = 61;         // num_hidden_layers
  r1.hidden = 7168;       // hidden_size
  r1.heads = 128;         // num_attention_heads
  r1.attention = AttentionKind::MLA;
  r1.q_lora_rank = 1536;  // q_lora_rank
  r1.kv_lora_rank = 512;  // kv_lora_rank
  r1.rope_dim = 64;       // qk_rope_head_dim
  r1.nope_dim = 128;      // qk_nope_head_dim
  r1.v_head_dim = 128;    // v_head_dim
  r1.ffn = 18432;         // intermediate_size
  r1.experts = 256;       // n_routed_experts
  r1.active_experts = 8;  // num_experts_per_tok
  r1.shared_experts = 1;  // n_shared_experts
  r1.expert_ffn = 2048;   // moe_intermediate_size
  r1.dense_layers = 3;    // first_k_dense_replace
  r1.vocab = 129280;

  ModelShape qwen; // Qwen/Qwen3-235B-A22B
  qwen.name = "qwen3-235b-a22b";
  qwen.layers = 94;
  qwen.hidden = 4096;
  qwen.heads = 64;
  qwen.kv_heads = 4;
  qwen.head_dim = 128;
  qwen.experts = 128;
  qwen.active_experts = 8;
  qwen.expert_ffn = 1536;
  qwen.vocab = 151936;

  ModelShape oss; // openai/gpt-oss-120b: alternating full and 128-token sliding-window layers
  oss.name = "gpt-oss-120b";
  oss.layers = 36;
  oss.hidden = 2880;
  oss.heads = 64;
  oss.kv_heads = 8;
  oss.head_dim = 64;
  oss.experts = 128;
  oss.active_experts = 4;
  oss.expert_ffn = 2880;
  oss.vocab = 201088;
  oss.window_tokens = 128;
  oss.window_layers = 18;

  ModelShape llama; // meta-llama/Llama-3.1-70B
  llama.name = "llama3-70b";
  llama.layers = 80;
  llama.hidden = 8192;
  llama.heads = 64;
  llama.kv_heads = 8;
  llama.head_dim = 128;
  llama.ffn = 28672;
  llama.vocab = 128256;
  return {r1, qwen, oss, llama};
}
} // namespace

const ModelShape* find_model_shape(std::string_view name) {
  static const std::vector<ModelShape> all = presets();
  for (const auto& m : all)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> model_shape_names() {
  std::vector<std::string> names;
  for (const auto& m : presets())
    names.push_back(m.name);
  return names;
}

} // namespace dcsim::serving
