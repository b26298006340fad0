#include "models/workload/transformer_flops.hpp"

namespace dcsim::workload {

int mlp_matrices(const TransformerSpec& m) { return m.mlp == Mlp::SWIGLU ? 3 : 2; }

double kv_width(const TransformerSpec& m) {
  return static_cast<double>(m.kv_heads) * static_cast<double>(m.hidden) / static_cast<double>(m.heads);
}

namespace {
double mlp_params(const TransformerSpec& m, double inner) {
  const int n = mlp_matrices(m);
  const double h = m.hidden;
  return n * h * inner + (n - 1) * inner + h; // matrices + biases
}
} // namespace

double dense_params_per_layer(const TransformerSpec& m) {
  const double h = m.hidden;
  const double hkv = kv_width(m);
  double p = 2 * h * h + 2 * h * hkv + 2 * h + 2 * hkv + 4 * h; // attention, its biases, two norms
  if (m.moe())
    p += h * m.experts; // router
  else
    p += mlp_params(m, m.ffn_hidden);
  return p;
}

double expert_params_per_layer(const TransformerSpec& m) {
  return m.moe() ? m.experts * mlp_params(m, m.expert_ffn_hidden) : 0.0;
}

double embedding_params(const TransformerSpec& m) {
  const double table = static_cast<double>(m.vocab) * m.hidden;
  return m.tied_embeddings ? table : 2 * table;
}

double total_params(const TransformerSpec& m) {
  return m.layers * (dense_params_per_layer(m) + expert_params_per_layer(m)) + embedding_params(m);
}

double active_params(const TransformerSpec& m) {
  const double experts = m.moe() ? m.top_k * mlp_params(m, m.expert_ffn_hidden) : 0.0;
  return m.layers * (dense_params_per_layer(m) + experts) + embedding_params(m);
}

double attention_core_flops_per_token(const TransformerSpec& m) {
  return 4.0 * static_cast<double>(m.seq_len) * m.hidden;
}

double layer_forward_flops_per_token(const TransformerSpec& m) {
  const double h = m.hidden;
  const double hkv = kv_width(m);
  const int n = mlp_matrices(m);
  const double mlp = m.moe() ? 2 * h * m.experts + m.top_k * 2.0 * n * h * m.expert_ffn_hidden
                             : 2.0 * n * h * m.ffn_hidden;
  return 2 * (2 * h * h + 2 * h * hkv) + attention_core_flops_per_token(m) + mlp;
}

double logits_forward_flops_per_token(const TransformerSpec& m) {
  return 2.0 * static_cast<double>(m.hidden) * m.vocab;
}

double layer_recompute_flops_per_token(const TransformerSpec& m) {
  switch (m.recompute) {
  case Recompute::FULL: return layer_forward_flops_per_token(m);
  case Recompute::SELECTIVE: return attention_core_flops_per_token(m);
  case Recompute::NONE: break;
  }
  return 0.0;
}

double model_flops_per_step(const TransformerSpec& m) {
  return 3.0 * m.tokens_per_step() * (m.layers * layer_forward_flops_per_token(m) + logits_forward_flops_per_token(m));
}

double hardware_flops_per_step(const TransformerSpec& m) {
  return model_flops_per_step(m) + m.tokens_per_step() * m.layers * layer_recompute_flops_per_token(m);
}

} // namespace dcsim::workload
