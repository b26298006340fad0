#include "models/workload/memory_footprint.hpp"

#include "models/workload/transformer_flops.hpp"

#include <algorithm>

namespace dcsim::workload {

namespace {
constexpr double BYTES_PER_GB = 1e9;
constexpr double LOGIT_BYTES = 4.0; // fp32 logits for the loss
} // namespace

long long micro_batches(const TransformerSpec& m, const ParallelismSpec& p) {
  const long long per = static_cast<long long>(p.dp) * m.micro_batch;
  return per > 0 ? m.global_batch / per : 0;
}

int layers_per_stage(const TransformerSpec& m, const ParallelismSpec& p) { return (m.layers + p.pp - 1) / p.pp; }

double tokens_per_micro_batch(const TransformerSpec& m, const ParallelismSpec& p) {
  return static_cast<double>(m.micro_batch) * m.seq_len / p.cp;
}

GpuParams gpu_params(const TransformerSpec& m, const ParallelismSpec& p) {
  const double layers = layers_per_stage(m, p);
  // One embedding table per end of the pipeline; both on one GPU when pp = 1 and untied.
  const double table = static_cast<double>(m.vocab) * m.hidden;
  const double embeddings = (p.pp == 1 ? embedding_params(m) : table) / p.tp;
  return GpuParams{layers * dense_params_per_layer(m) / p.tp + embeddings,
                   layers * expert_params_per_layer(m) / (static_cast<double>(p.ep) * p.tp)};
}

LayerActivations layer_activations(const TransformerSpec& m, const ParallelismSpec& p) {
  const double t = p.tp;
  const double h = m.hidden;
  const double tokens = tokens_per_micro_batch(m, p);
  const int n = mlp_matrices(m);
  const double mlp = m.moe() ? m.top_k * (2 * h + 2.0 * n * m.expert_ffn_hidden) : 2.0 * n * m.ffn_hidden;
  const double replicated = 10 * h / (p.sequence_parallel ? t : 1.0);
  const double sharded = (4 * h + 4 * kv_width(m) + mlp) / t;
  const double scores = m.flash_attention ? 0.0 : 5.0 * m.heads * static_cast<double>(m.seq_len) / t;
  return LayerActivations{tokens * (replicated + sharded + scores), tokens * scores};
}

double layer_stored_bytes(const TransformerSpec& m, const ParallelismSpec& p) {
  const LayerActivations a = layer_activations(m, p);
  switch (m.recompute) {
  case Recompute::NONE: return a.all_bytes;
  case Recompute::SELECTIVE: return a.all_bytes - a.scores_bytes;
  case Recompute::FULL:
    return tokens_per_micro_batch(m, p) * ACTIVATION_BYTES * m.hidden / (p.sequence_parallel ? p.tp : 1);
  }
  return a.all_bytes;
}

MemoryFootprint memory_footprint(const TransformerSpec& m, const ParallelismSpec& p) {
  const GpuParams params = gpu_params(m, p);
  const double dense_group = static_cast<double>(p.dp) * p.cp;
  const double expert_group = std::max(1.0, dense_group / p.ep);
  // Parameters per ZeRO-sharded state: divide each part by its group when that state is sharded.
  auto sharded = [&](bool shard) {
    return shard ? params.dense / dense_group + params.expert / expert_group : params.total();
  };
  MemoryFootprint f;
  f.weights_gb = WEIGHT_BYTES * sharded(p.zero >= 3) / BYTES_PER_GB;
  if (p.zero >= 3)
    f.weights_gb += WEIGHT_BYTES * (dense_params_per_layer(m) / p.tp + expert_params_per_layer(m) / (p.ep * p.tp)) /
                    BYTES_PER_GB;
  f.gradients_gb = GRADIENT_BYTES * sharded(p.zero >= 2) / BYTES_PER_GB;
  f.optimizer_gb = OPTIMIZER_BYTES * sharded(p.zero >= 1) / BYTES_PER_GB;

  const double layers = layers_per_stage(m, p);
  const double stored = layer_stored_bytes(m, p);
  const double working = m.recompute == Recompute::FULL ? layer_activations(m, p).all_bytes : 0.0;
  const double pp = p.pp;
  const double interleave = p.virtual_stages > 1 ? 1.0 + (pp - 1) / (pp * p.virtual_stages) : 1.0;
  const double first_in_flight = static_cast<double>(std::min<long long>(micro_batches(m, p), p.pp)) * interleave;
  const double last_in_flight = p.pp == 1 ? first_in_flight : interleave;
  const double logits = LOGIT_BYTES * tokens_per_micro_batch(m, p) * m.vocab / p.tp;
  const double first = layers * stored * first_in_flight + working + (p.pp == 1 ? logits : 0.0);
  const double last = layers * stored * last_in_flight + working + logits;
  f.activations_gb = std::max(first, last) / BYTES_PER_GB;
  return f;
}

} // namespace dcsim::workload
