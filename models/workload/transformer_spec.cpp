#include "models/workload/transformer_spec.hpp"

#include "models/workload/memory_footprint.hpp"

#include <fmt/format.h>

namespace dcsim::workload {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

std::string_view recompute_name(Recompute recompute) {
  switch (recompute) {
  case Recompute::NONE: return "none";
  case Recompute::SELECTIVE: return "selective";
  case Recompute::FULL: return "full";
  }
  return "?";
}

namespace {
const char* BATCH_NOTE = "give exactly one of global_batch, global_batch_tokens";
} // namespace

const KeyTable& model_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/model",
      "decoder-only transformer whose step time, FLOPs and memory are derived (dense, or MoE with experts)",
      {
          KeyDef{"layers", ValueType::INTEGER, "", nullptr, "transformer layers", sim::at_least(1)},
          KeyDef{"hidden", ValueType::INTEGER, "", nullptr, "hidden size h", sim::at_least(1)},
          KeyDef{"ffn_hidden", ValueType::INTEGER, "", nullptr, "inner size of the dense MLP", sim::at_least(1), {},
                 "4 × hidden"},
          KeyDef{"heads", ValueType::INTEGER, "", nullptr, "attention heads", sim::at_least(1)},
          KeyDef{"kv_heads", ValueType::INTEGER, "", nullptr,
                 "key/value heads (grouped-query attention when fewer than heads)", sim::at_least(1), {}, "heads"},
          KeyDef{"seq_len", ValueType::INTEGER, "tokens", nullptr, "sequence length", sim::at_least(1)},
          KeyDef{"vocab", ValueType::INTEGER, "", nullptr, "vocabulary size (padded)", sim::at_least(1)},
          KeyDef{"global_batch", ValueType::INTEGER, "sequences", nullptr, "sequences per step", sim::at_least(1), {},
                 BATCH_NOTE},
          KeyDef{"global_batch_tokens", ValueType::INTEGER, "tokens", nullptr,
                 "tokens per step (a multiple of seq_len)", sim::at_least(1), {}, BATCH_NOTE},
          KeyDef{"micro_batch", ValueType::INTEGER, "sequences", 1, "sequences per micro-batch", sim::at_least(1)},
          KeyDef{"experts", ValueType::INTEGER, "", 0, "experts per MoE layer; 0 = dense model (every layer MoE "
                 "otherwise)", sim::non_negative()},
          KeyDef{"top_k", ValueType::INTEGER, "", nullptr, "experts each token is routed to", sim::at_least(1), {},
                 "2 (MoE only)"},
          KeyDef{"expert_ffn_hidden", ValueType::INTEGER, "", nullptr, "inner size of one expert's MLP",
                 sim::at_least(1), {}, "ffn_hidden (MoE only)"},
          KeyDef{"hot_expert_share_frac", ValueType::NUMBER, "", nullptr,
                 "share of the routed tokens the busiest expert receives (load imbalance, >= 1/experts); the "
                 "expert-parallel all-to-all moves at the pace of the rank holding it (step_model.hpp)",
                 sim::Bounds{0.0, 1.0, true, false}, {}, "1/experts: balanced routing (MoE only)"},
          KeyDef{"mlp", ValueType::STRING, "", "gelu", "MLP form: gelu (up, down matrices) or swiglu (gate, up, down)",
                 {}, {"gelu", "swiglu"}},
          KeyDef{"tied_embeddings", ValueType::BOOLEAN, "", true, "input and output embeddings share one table"},
          KeyDef{"flash_attention", ValueType::BOOLEAN, "", true,
                 "attention scores are never stored (FlashAttention); false: stored as in Megatron-LM 2021"},
          KeyDef{"precision", ValueType::STRING, "", "bf16",
                 "precision of the matrix multiplications; selects the GPU's peak", {}, {"bf16", "fp8", "fp4"}},
          KeyDef{"recompute", ValueType::STRING, "", "none",
                 "activation recomputation: none, selective (attention core), full (every layer)", {},
                 {"none", "selective", "full"}},
      }};
  return table;
}

const KeyTable& parallelism_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/parallelism", "how the model is split over the job's GPUs (tp × pp × dp × cp = gpus)",
      {
          KeyDef{"tp", ValueType::INTEGER, "", 1, "tensor-parallel GPUs (inside one NVLink domain)", sim::at_least(1)},
          KeyDef{"pp", ValueType::INTEGER, "", 1, "pipeline stages", sim::at_least(1)},
          KeyDef{"virtual_stages", ValueType::INTEGER, "", 1,
                 "model chunks per pipeline stage; > 1: interleaved 1F1B schedule", sim::at_least(1)},
          KeyDef{"dp", ValueType::INTEGER, "", nullptr, "data-parallel replicas", sim::at_least(1), {},
                 "gpus ÷ (tp × pp × cp)"},
          KeyDef{"cp", ValueType::INTEGER, "", 1, "context-parallel GPUs splitting each sequence", sim::at_least(1)},
          KeyDef{"ep", ValueType::INTEGER, "", 1, "expert-parallel GPUs (carved out of dp × cp; MoE only)",
                 sim::at_least(1)},
          KeyDef{"zero", ValueType::INTEGER, "", 1,
                 "ZeRO stage over dp × cp: 0 none, 1 optimizer state (Megatron distributed optimizer), "
                 "2 + gradients, 3 + weights (FSDP)",
                 sim::between(0, 3)},
          KeyDef{"sequence_parallel", ValueType::BOOLEAN, "", true,
                 "with tp > 1, shard norms and dropout over tp (tp collectives as reduce-scatter + all-gather)"},
          KeyDef{"overlap_grad_reduce", ValueType::BOOLEAN, "", true,
                 "gradient reduction overlaps the backward pass of the last micro-batch"},
          KeyDef{"overlap_param_gather", ValueType::BOOLEAN, "", true,
                 "ZeRO weight all-gathers overlap the forward pass"},
      }};
  return table;
}

namespace {

auto integer(const sim::Node& n, const char* key) { return n.int32(key); }

/// The transformer of /jobs/N/model: keys, then their consistency among themselves.
void decode_transformer(const sim::Node& model, TransformerSpec& m) {
  m.layers = integer(model, "layers");
  m.hidden = integer(model, "hidden");
  m.heads = integer(model, "heads");
  m.ffn_hidden = static_cast<int>(model.optional_integer("ffn_hidden").value_or(std::min<long long>(4LL * m.hidden, INT_MAX)));
  m.kv_heads = static_cast<int>(model.optional_integer("kv_heads").value_or(m.heads));
  m.seq_len = integer(model, "seq_len");
  m.vocab = integer(model, "vocab");
  m.micro_batch = integer(model, "micro_batch");
  m.experts = integer(model, "experts");
  m.mlp = model.string("mlp") == "swiglu" ? Mlp::SWIGLU : Mlp::GELU;
  m.tied_embeddings = model.boolean("tied_embeddings");
  m.flash_attention = model.boolean("flash_attention");
  const std::string precision = model.string("precision");
  m.precision = precision == "fp8"   ? hardware::Precision::FP8
                : precision == "fp4" ? hardware::Precision::FP4
                                     : hardware::Precision::BF16;
  const std::string recompute = model.string("recompute");
  m.recompute = recompute == "full" ? Recompute::FULL : recompute == "selective" ? Recompute::SELECTIVE : Recompute::NONE;

  const auto batch = model.optional_integer("global_batch");
  const auto batch_tokens = model.optional_integer("global_batch_tokens");
  if (model.has("global_batch") && model.has("global_batch_tokens"))
    model.problem("global_batch_tokens", "give either global_batch or global_batch_tokens, not both");
  else if (!model.has("global_batch") && !model.has("global_batch_tokens"))
    model.problem_here("missing global_batch (sequences per step) or global_batch_tokens");
  if (batch) m.global_batch = *batch;
  if (batch_tokens && m.seq_len > 0) {
    if (*batch_tokens % m.seq_len != 0)
      model.problem("global_batch_tokens", fmt::format("must be a multiple of seq_len ({})", m.seq_len));
    m.global_batch = *batch_tokens / m.seq_len;
  }

  if (m.moe()) {
    m.top_k = static_cast<int>(model.optional_integer("top_k").value_or(2));
    m.expert_ffn_hidden = static_cast<int>(model.optional_integer("expert_ffn_hidden").value_or(m.ffn_hidden));
    if (m.top_k > m.experts) model.problem("top_k", fmt::format("must be at most experts ({})", m.experts));
    m.hot_expert_share_frac = model.optional_number("hot_expert_share_frac").value_or(1.0 / m.experts);
    if (m.hot_expert_share_frac < 1.0 / m.experts * (1 - 1e-12))
      model.problem("hot_expert_share_frac",
                    fmt::format("must be at least 1/experts = {:.6g} (the busiest expert gets at least the mean share)",
                                1.0 / m.experts));
  } else {
    for (const char* key : {"top_k", "expert_ffn_hidden", "hot_expert_share_frac"})
      if (model.has(key)) model.problem(key, "applies only to mixture-of-experts models (experts ≥ 1)");
  }
  if (m.heads > 0 && m.hidden % m.heads != 0)
    model.problem("heads", fmt::format("must divide hidden ({})", m.hidden));
  if (m.kv_heads > 0 && m.heads % m.kv_heads != 0)
    model.problem("kv_heads", fmt::format("must divide heads ({})", m.heads));
}

/// /jobs/N/parallelism, with dp derived from the job's GPUs when absent. False when dp could not be
/// set (already reported): the checks that need it are skipped.
bool decode_parallelism(const sim::Node& job, const sim::Node& par, int gpus, ParallelismSpec& p) {
  p.tp = integer(par, "tp");
  p.pp = integer(par, "pp");
  p.virtual_stages = integer(par, "virtual_stages");
  p.cp = integer(par, "cp");
  p.ep = integer(par, "ep");
  p.zero = integer(par, "zero");
  p.sequence_parallel = par.boolean("sequence_parallel");
  p.overlap_grad_reduce = par.boolean("overlap_grad_reduce");
  p.overlap_param_gather = par.boolean("overlap_param_gather");
  const auto dp = par.optional_integer("dp");
  const long long tp_pp_cp = static_cast<long long>(p.tp) * p.pp * p.cp;
  const std::string gpus_ptr = job.child_pointer("gpus");
  if (gpus <= 0 || tp_pp_cp <= 0) return false; // already reported
  if (dp) {
    p.dp = static_cast<int>(*dp);
    if (p.gpus() != gpus)
      par.problem_here(fmt::format("tp × pp × dp × cp = {} × {} × {} × {} = {} GPUs, but the job has {} GPUs ({})",
                                   p.tp, p.pp, p.dp, p.cp, p.gpus(), gpus, gpus_ptr));
  } else if (par.has("dp")) {
    return false; // bad dp, already reported
  } else if (gpus % tp_pp_cp != 0) {
    par.problem_here(fmt::format("tp × pp × cp = {} × {} × {} = {} does not divide the job's {} GPUs ({}), so dp "
                                 "cannot be derived",
                                 p.tp, p.pp, p.cp, tp_pp_cp, gpus, gpus_ptr));
    return false;
  } else {
    p.dp = static_cast<int>(gpus / tp_pp_cp);
  }
  return true;
}

/// What the model and its parallelism require of each other.
void check_model_parallelism(const sim::Node& model, const sim::Node& par, const TransformerSpec& m,
                             const ParallelismSpec& p) {
  if (m.heads > 0 && m.heads % p.tp != 0) par.problem("tp", fmt::format("must divide heads ({})", m.heads));
  if (m.seq_len > 0 && m.seq_len % p.cp != 0) par.problem("cp", fmt::format("must divide seq_len ({})", m.seq_len));
  if (p.virtual_stages > 1 && p.pp < 2) par.problem("virtual_stages", "needs pp ≥ 2 (the interleaved schedule)");
  const long long chunks = static_cast<long long>(p.pp) * p.virtual_stages;
  if (m.layers > 0 && chunks > m.layers)
    par.problem_here(fmt::format("pp × virtual_stages = {} × {} = {} pipeline chunks, but the model has only {} layers",
                                 p.pp, p.virtual_stages, chunks, m.layers));
  const long long dp_cp = static_cast<long long>(p.dp) * p.cp;
  if (p.ep > 1 && !m.moe()) par.problem("ep", "needs a mixture-of-experts model (model/experts ≥ 1)");
  if (p.ep > 1 && dp_cp % p.ep != 0)
    par.problem("ep", fmt::format("must divide dp × cp = {} × {} = {}", p.dp, p.cp, dp_cp));
  if (m.moe() && m.experts % p.ep != 0) par.problem("ep", fmt::format("must divide experts ({})", m.experts));

  const long long per_step = static_cast<long long>(p.dp) * m.micro_batch;
  if (m.global_batch > 0 && per_step > 0 && m.global_batch % per_step != 0) {
    if (model.has("global_batch"))
      model.problem("global_batch", fmt::format("must be a multiple of dp × micro_batch = {} × {} = {} sequences",
                                                p.dp, m.micro_batch, per_step));
    else if (model.has("global_batch_tokens"))
      model.problem("global_batch_tokens",
                    fmt::format("must be a multiple of seq_len × dp × micro_batch = {} × {} × {} = {} tokens",
                                m.seq_len, p.dp, m.micro_batch, per_step * m.seq_len));
  }
}

} // namespace

ModelJobSpec decode_model_job(const sim::Node& job, int gpus) {
  ModelJobSpec out;
  const sim::Node model = job.object("model", model_keys());
  const sim::Node par = job.object("parallelism", parallelism_keys());
  decode_transformer(model, out.model);
  if (decode_parallelism(job, par, gpus, out.parallelism))
    check_model_parallelism(model, par, out.model, out.parallelism);
  return out;
}

NvlinkDomain nvlink_domain(const hardware::RackSpec& rack) {
  if (rack.kind == hardware::RackKind::NVL72)
    return {rack.domain_usable_gpus(), "an nvl72 rack (/hardware/rack/gpus − spare_gpus)"};
  return {rack.domain_usable_gpus(), "an hgx server (/hardware/rack/gpus_per_node)"};
}

void check_model_job(const ModelJobSpec& job, int index, const hardware::HardwareSpec& hardware,
                     sim::Problems& problems) {
  const TransformerSpec& m = job.model;
  const ParallelismSpec& p = job.parallelism;
  const std::string where = fmt::format("/jobs/{}", index);
  if (hardware.gpu.peak_tflops_at(m.precision) <= 0) {
    const Json got(std::string(hardware::precision_name(m.precision)));
    problems.add(where + "/model/precision",
                 fmt::format("the GPU ({}) has no {} peak: /hardware/gpu/{}_tflops is 0", hardware.gpu.model,
                             hardware::precision_name(m.precision), hardware::precision_name(m.precision)),
                 &got);
  }
  const NvlinkDomain domain = nvlink_domain(hardware.rack);
  const long long group = static_cast<long long>(p.tp) * p.ep;
  // Expert parallelism may span whole NVLink domains (its all-to-all then crosses the fabric); tp may not.
  const bool ep_spans = p.ep > 1 && group > domain.gpus && group % domain.gpus == 0 && domain.gpus % p.tp == 0;
  if (ep_spans) {
  } else if (group > domain.gpus)
    problems.add(where + "/parallelism",
                 fmt::format("tp × ep = {} × {} = {} GPUs must fit in one NVLink domain, which has {} usable GPUs "
                             "in {}{}",
                             p.tp, p.ep, group, domain.gpus, domain.what,
                             p.ep > 1 && domain.gpus % p.tp == 0
                                 ? fmt::format(", or span whole domains (a multiple of {} GPUs: the expert all-to-all "
                                               "then crosses the fabric)",
                                               domain.gpus)
                                 : std::string()));
  else if (domain.gpus % group != 0) // ranks fill domains in order: a group would straddle two domains
    problems.add(where + "/parallelism",
                 fmt::format("tp × ep = {} × {} = {} GPUs must divide the {} usable GPUs of an NVLink domain ({}), "
                             "or some groups would straddle two domains",
                             p.tp, p.ep, group, domain.gpus, domain.what));
  const MemoryFootprint mem = memory_footprint(m, p);
  if (mem.total_gb() > hardware.gpu.hbm_gb)
    problems.add(where, fmt::format("needs {:.1f} GB of memory per GPU (weights {:.1f}, gradients {:.1f}, optimizer "
                                    "state {:.1f}, activations {:.1f}), more than the GPU's {} GB of HBM "
                                    "(/hardware/gpu/hbm_gb); recompute, more tp/pp/cp or a higher zero stage "
                                    "would lower it",
                                    mem.total_gb(), mem.weights_gb, mem.gradients_gb, mem.optimizer_gb,
                                    mem.activations_gb, hardware.gpu.hbm_gb));
}

} // namespace dcsim::workload
