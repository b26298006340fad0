// A training job described by its model and parallelism instead of a measured step time.
//
// `jobs[].model` is a decoder-only transformer (dense, or mixture of experts when `experts` > 0) and
// `jobs[].parallelism` how it is split over the job's GPUs: tensor (tp), pipeline (pp, with
// `virtual_stages` chunks per stage for the interleaved schedule), data (dp), context (cp) and expert
// (ep) parallelism, and the ZeRO stage that shards optimizer state, gradients and weights over dp × cp.
// The step time, model FLOPs and tokens per step are then derived (models/workload/step_model.hpp);
// giving `step_time_s`, `model_flops_per_step` or `tokens_per_step` together with `model` is an error
// (one source of truth per number).
//
// Rank order (Megatron-Core's default "tp-cp-ep-dp-pp"): job rank r = tp_i + tp·(cp_i + cp·(dp_i + dp·pp_i)),
// expert-parallel ranks being consecutive dp×cp ranks. Job ranks fill NVLink domains in order, so a
// group whose members are `stride` ranks apart has min(size, domain ÷ stride) members per domain:
//   group        size        stride
//   tp           tp          1
//   cp           cp          tp
//   ep           ep          tp
//   dp (+cp)     dp·cp       tp          gradients of dense weights (Megatron reduces over DP×CP)
//   expert dp    dp·cp/ep    tp·ep       gradients of expert weights
//   pp           2 (a hop)   tp·cp·dp
//
// Checks made at decoding (exact, located messages with the numbers): tp × pp × dp × cp equals the job's
// GPUs; ep divides dp × cp and experts; tp divides heads; the global batch is a whole number of
// dp × micro_batch sequences; cp divides seq_len; enough layers for pp × virtual_stages. Checks that need
// the hardware (check_model_jobs, run once the areas are sound): the GPU has a peak at the precision; a
// tp × ep group fits one NVLink domain (its usable GPUs: nvl72 gpus − spare_gpus, hgx gpus_per_node);
// the memory footprint fits the GPU's HBM.
#pragma once

#include "models/hardware/spec.hpp"
#include "sim/json_reader.hpp"

#include <string_view>
#include <vector>

namespace dcsim::workload {

enum class Recompute { NONE, SELECTIVE, FULL };
std::string_view recompute_name(Recompute recompute);

enum class Mlp { GELU, SWIGLU };

struct TransformerSpec {
  int layers = 0;
  int hidden = 0;
  int ffn_hidden = 0;        ///< dense MLP inner size
  int heads = 0;
  int kv_heads = 0;          ///< key/value heads (grouped-query attention when < heads)
  int seq_len = 0;           ///< tokens per sequence
  int vocab = 0;
  long long global_batch = 0; ///< sequences per step
  int micro_batch = 1;       ///< sequences per micro-batch
  int experts = 0;           ///< 0: dense
  int top_k = 0;             ///< experts per token (MoE)
  int expert_ffn_hidden = 0; ///< MLP inner size of one expert (MoE)
  double hot_expert_share_frac = 0; ///< share of routed tokens the busiest expert gets (MoE; 1/experts: balanced)
  Mlp mlp = Mlp::GELU;       ///< GELU: 2 matrices (up, down); SWIGLU: 3 (gate, up, down)
  bool tied_embeddings = true;
  bool flash_attention = true; ///< attention scores never stored (FlashAttention); false: Megatron 2021
  hardware::Precision precision = hardware::Precision::BF16;
  Recompute recompute = Recompute::NONE;

  bool moe() const { return experts > 0; }
  double tokens_per_step() const { return static_cast<double>(global_batch) * seq_len; }
};

struct ParallelismSpec {
  int tp = 1;
  int pp = 1;
  int virtual_stages = 1; ///< model chunks per pipeline stage (interleaved 1F1B when > 1)
  int dp = 1;
  int cp = 1;
  int ep = 1;
  int zero = 1;           ///< 0: none; 1: optimizer state sharded; 2: + gradients; 3: + weights (FSDP)
  bool sequence_parallel = true; ///< with tp > 1: norms/dropout sharded, collectives as RS + AG
  bool overlap_grad_reduce = true;   ///< gradient reduction overlaps the last micro-batch's backward
  bool overlap_param_gather = true;  ///< ZeRO weight all-gathers overlap forward compute

  long long gpus() const { return static_cast<long long>(tp) * pp * dp * cp; }
};

/// The model-derived description of a training job.
struct ModelJobSpec {
  TransformerSpec model;
  ParallelismSpec parallelism;
};

const sim::KeyTable& model_keys();
const sim::KeyTable& parallelism_keys();

/// Decodes `model` and `parallelism` of job node `job` running on `gpus` GPUs; reports problems on the nodes.
ModelJobSpec decode_model_job(const sim::Node& job, int gpus);

/// Usable GPUs of one NVLink domain and a phrase saying where the number comes from.
struct NvlinkDomain {
  int gpus = 0;
  std::string what; ///< e.g. "an nvl72 rack (gpus − spare_gpus)"
};
NvlinkDomain nvlink_domain(const hardware::RackSpec& rack);

/// Hardware-dependent checks of job `index` (pointer /jobs/INDEX): precision, NVLink domain, memory.
void check_model_job(const ModelJobSpec& job, int index, const hardware::HardwareSpec& hardware,
                     sim::Problems& problems);

} // namespace dcsim::workload
