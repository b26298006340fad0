#include "models/serving/perf_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dcsim::serving {

namespace {
constexpr double GB = 1e9;
constexpr double TERA = 1e12;
constexpr double EMBEDDING_BYTES = 2; // embeddings and output head stay bf16
constexpr double ACTIVATION_BYTES = 2; // bf16 activations in all-reduces and the combine
} // namespace

double weight_bytes_per_param(hardware::Precision precision) {
  switch (precision) {
  case hardware::Precision::BF16: return 2.0;
  case hardware::Precision::FP8: return 1.0;
  case hardware::Precision::FP4: return 0.5 + 1.0 / 16.0; // NVFP4: one FP8 scale per 16 elements
  }
  return 2.0;
}

std::string InstanceConfig::label() const {
  std::string s = attention_dp ? fmt::format("DEP{}", tp) : ep > 1 ? fmt::format("TP{} EP{}", tp, ep) : fmt::format("TP{}", tp);
  if (pp > 1) s += fmt::format(" PP{}", pp);
  return s + " " + std::string(hardware::precision_name(weights));
}

std::string check_instance(const ModelShape& model, const InstanceConfig& cfg, const GpuFigures& gpu) {
  if (cfg.tp < 1 || cfg.pp < 1 || cfg.ep < 1) return fmt::format("tp, ep and pp must be >= 1 (got {}, {}, {})", cfg.tp, cfg.ep, cfg.pp);
  if (cfg.tp % cfg.ep != 0) return fmt::format("ep must divide tp (got ep {} with tp {})", cfg.ep, cfg.tp);
  if (cfg.attention_dp && cfg.ep != cfg.tp && model.moe())
    return fmt::format("attention_dp needs ep = tp (got ep {} with tp {})", cfg.ep, cfg.tp);
  if (cfg.ep > 1 && !model.moe()) return fmt::format("ep > 1 needs a mixture of experts (got ep {})", cfg.ep);
  if (model.moe() && model.experts % cfg.ep != 0) return fmt::format("ep must divide the experts (got ep {} with {} experts)", cfg.ep, model.experts);
  if (model.layers < cfg.pp) return fmt::format("pp exceeds the layers (got pp {} with {} layers)", cfg.pp, model.layers);
  if (cfg.kv_bytes <= 0) return fmt::format("kv bytes must be > 0 (got {})", cfg.kv_bytes);
  if (gpu.hbm_gb <= 0 || gpu.hbm_tb_per_s <= 0 || gpu.bf16_tflops <= 0) return "the GPU lacks HBM or compute figures";
  return {};
}

PerfModel::PerfModel(ModelShape model, InstanceConfig config, GpuFigures gpu, Efficiency eff)
    : model_(std::move(model)), cfg_(config), gpu_(std::move(gpu)), eff_(std::move(eff)) {}

double PerfModel::weights_bytes_per_gpu() const {
  const double bw = weight_bytes_per_param(cfg_.weights);
  const double replicated = cfg_.attention_dp ? 1.0 : double(cfg_.tp);
  const double dense = (model_.dense_params() * bw + model_.embedding_params() * EMBEDDING_BYTES) / replicated;
  const double experts = model_.expert_params_total() * bw / cfg_.tp;
  return (dense + experts) / cfg_.pp;
}

double PerfModel::kv_capacity_bytes_per_gpu() const {
  const double free = gpu_.hbm_gb * GB - weights_bytes_per_gpu() - eff_.runtime_gb * GB;
  return std::max(0.0, eff_.kv_cache_frac * free);
}

double PerfModel::kv_share() const {
  if (cfg_.attention_dp || model_.attention == AttentionKind::MLA) return 1.0;
  return std::max(1.0, double(model_.kv_heads) / cfg_.tp) / model_.kv_heads;
}

double PerfModel::kv_bytes_per_request_per_gpu(double tokens) const {
  return model_.kv_bytes_per_token(cfg_.kv_bytes) * model_.kv_tokens_read(tokens) / cfg_.pp * kv_share();
}

int PerfModel::max_batch(int isl, int osl) const {
  const double per_request = kv_bytes_per_request_per_gpu(double(isl) + osl);
  const double per_rank = std::floor(kv_capacity_bytes_per_gpu() / per_request);
  const double cap = double(eff_.max_batch_per_rank);
  return static_cast<int>(std::min(per_rank, cap)) * ranks();
}

double PerfModel::allreduce_s(double bytes) const {
  const int p = cfg_.tp;
  if (p <= 1) return 0;
  const bool in_domain = p <= gpu_.domain_gpus;
  const double link = in_domain ? gpu_.nvlink_gb_per_s * eff_.nvlink_frac : gpu_.nic_gb_per_s * eff_.nic_frac;
  return 2.0 * (p - 1) / p * bytes / (link * GB) + eff_.collective_latency_us * 1e-6;
}

double PerfModel::all_to_all_s(double bytes_out) const {
  const int p = cfg_.tp;
  if (p <= 1) return 0;
  // Of what leaves a GPU, the share bound outside its domain crosses the NIC; the two links work at once.
  const double members_in_domain = std::min(p, gpu_.domain_gpus);
  const double off_domain = (p - members_in_domain) / (p - 1.0);
  const double nvl = bytes_out * (1.0 - off_domain) / (gpu_.nvlink_gb_per_s * eff_.nvlink_frac * GB);
  const double nic = off_domain > 0 ? bytes_out * off_domain / (gpu_.nic_gb_per_s * eff_.nic_frac * GB) : 0.0;
  return std::max(nvl, nic) + eff_.collective_latency_us * 1e-6;
}

double PerfModel::comm_per_layer_s(double tokens) const {
  if (cfg_.tp <= 1) return 0;
  const double h = model_.hidden;
  if (!cfg_.attention_dp) return 2.0 * allreduce_s(tokens * h * ACTIVATION_BYTES);
  if (!model_.moe()) return 0;
  const double dispatch_bytes = cfg_.weights == hardware::Precision::BF16 ? 2.0 : 1.0;
  const double out = tokens / cfg_.tp * model_.active_experts * h * (1.0 - 1.0 / cfg_.tp);
  const double moe_share = double(model_.moe_layers()) / model_.layers;
  return moe_share * (all_to_all_s(out * dispatch_bytes) + all_to_all_s(out * ACTIVATION_BYTES));
}

StepTimes PerfModel::decode_step(int batch, double ctx) const {
  const double pp = cfg_.pp, tp = cfg_.tp;
  const double tokens = std::max(1.0, batch / pp); // one stage's micro-batch
  const double bw_w = weight_bytes_per_param(cfg_.weights);
  const double replicated = cfg_.attention_dp ? 1.0 : tp;
  double bytes_w = (model_.dense_params() * bw_w + model_.vocab * double(model_.hidden) * EMBEDDING_BYTES) / replicated / pp;
  if (model_.moe()) {
    const double touched = 1.0 - std::pow(1.0 - double(model_.active_experts) / model_.experts, tokens);
    bytes_w += model_.expert_params_total() * touched * bw_w / tp / pp;
  }
  const double flops_w = 2.0 * model_.active_linear_params() * tokens / tp / pp;
  const double hbm = gpu_.hbm_tb_per_s * TERA;
  StepTimes t;
  t.weights_s = std::max(bytes_w / (hbm * eff_.hbm_frac), flops_w / (gpu_.peak_tflops(cfg_.weights) * TERA * eff_.gemm_frac));
  // Requests whose KV this GPU reads: a 1/tp share of the stage's tokens (attention DP) or all of them
  // with a 1/tp (or head-limited) share of each.
  const double read_tokens = model_.kv_tokens_read(ctx);
  const double kv_bytes = tokens * read_tokens * model_.kv_bytes_per_token(cfg_.kv_bytes) / pp *
                          (cfg_.attention_dp ? 1.0 / tp : kv_share());
  const double attn_flops = tokens * read_tokens * model_.attention_flops_per_ctx_token() / pp / tp;
  t.kv_s = std::max(kv_bytes / (hbm * eff_.kv_read_frac), attn_flops / (gpu_.bf16_tflops * TERA * eff_.gemm_frac));
  const double layers = model_.layers / pp;
  t.comm_s = layers * comm_per_layer_s(tokens);
  t.overhead_s = layers * eff_.layer_overhead_us * 1e-6 + eff_.step_overhead_ms * 1e-3;
  // pp stages in turn: a token passes every stage once per step.
  t.weights_s *= pp;
  t.kv_s *= pp;
  t.comm_s *= pp;
  t.overhead_s *= pp;
  return t;
}

double PerfModel::prefill_s_per_token(int isl) const {
  const double n = cfg_.gpus();
  const double linear = 2.0 * model_.active_linear_params() / (n * gpu_.peak_tflops(cfg_.weights) * TERA * eff_.gemm_frac);
  const double attn = model_.attention_flops_per_ctx_token() * model_.kv_tokens_read(isl / 2.0) /
                      (n * gpu_.bf16_tflops * TERA * eff_.gemm_frac);
  // Communication per token over the stage's layers; stages work in a pipeline.
  const double per_token_comm = cfg_.tp > 1 ? model_.layers / double(cfg_.pp) * comm_per_layer_s(eff_.max_num_tokens) / eff_.max_num_tokens : 0.0;
  return linear + attn + per_token_comm;
}

double PerfModel::prefill_s(int isl) const {
  const int chunk = eff_.max_num_tokens;
  const int chunks = (isl + chunk - 1) / chunk;
  const StepTimes base = decode_step(std::min(isl, chunk), 0); // weights (all touched) and overheads of each chunk's step
  return chunks * (base.weights_s + base.overhead_s) + isl * prefill_s_per_token(isl);
}

OperatingPoint PerfModel::point(int batch, int isl, int osl) const {
  OperatingPoint p;
  p.batch = batch;
  const StepTimes step = decode_step(batch, isl + osl / 2.0);
  const double c_pf = prefill_s_per_token(isl);
  p.decode_step_s = step.total_s();
  p.tpot_s = p.decode_step_s + double(batch) * isl / osl * c_pf;
  p.tokens_per_s_per_user = 1.0 / p.tpot_s;
  p.output_tokens_per_s_per_gpu = batch / (p.tpot_s * cfg_.gpus());
  const int chunk = std::max(1, eff_.max_num_tokens - batch);
  const int chunks = (isl + chunk - 1) / chunk;
  p.ttft_s = chunks * (p.decode_step_s + std::min(isl, chunk) * c_pf);
  const double held = batch / double(ranks()) * kv_bytes_per_request_per_gpu(isl + osl / 2.0);
  const double cap = kv_capacity_bytes_per_gpu();
  p.kv_util_frac = cap > 0 ? std::min(1.0, held / cap) : 1.0;
  return p;
}

OperatingCurve PerfModel::curve(int isl, int osl) const {
  OperatingCurve c;
  c.config = cfg_;
  c.isl = isl;
  c.osl = osl;
  c.weights_gb_per_gpu = weights_bytes_per_gpu() / GB;
  c.kv_gb_per_gpu = kv_capacity_bytes_per_gpu() / GB;
  c.max_batch = max_batch(isl, osl);
  c.prefill_s_per_token = prefill_s_per_token(isl);
  c.prefill_tokens_per_s_per_gpu = 1.0 / (c.prefill_s_per_token * cfg_.gpus());
  for (int b = 1; b < c.max_batch; b *= 2)
    c.points.push_back(point(b, isl, osl));
  if (c.max_batch > 0) c.points.push_back(point(c.max_batch, isl, osl));
  return c;
}

} // namespace dcsim::serving
