#include "models/serving/disaggregation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dcsim::serving {

using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

// clang-format off
const KeyTable& disaggregation_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/serving/disaggregation",
      "prefill/decode disaggregation: the service's instances split into prefill-only and decode-only pools, "
      "each request's KV cache handed over between them (docs/serving.md)",
      {
          KeyDef{"prefill_instances_per_decode_instance", ValueType::NUMBER, "", nullptr,
                 "r: prefill instances per decode instance (n_p = round(n·r/(1+r)), each pool at least one)",
                 sim::positive()},
          KeyDef{"kv_handoff_over", ValueType::STRING, "", "nvlink", "link carrying the KV hand-off: NVLink, "
                 "the NIC line rate (not yet shared with the fabric's traffic), or free (no time)",
                 {}, {"nvlink", "fabric", "free"}},
      }};
  return table;
}
// clang-format on

DisaggregationSpec decode_disaggregation(const sim::Node& n) {
  DisaggregationSpec s;
  s.prefill_per_decode = n.number("prefill_instances_per_decode_instance");
  const std::string over = n.string("kv_handoff_over");
  s.handoff = over == "fabric" ? KvHandoff::FABRIC : over == "free" ? KvHandoff::FREE : KvHandoff::NVLINK;
  return s;
}

PoolSplit split_pool(int instances, double r) {
  if (instances < 2 || !(r > 0)) return {};
  const double want = std::round(instances * r / (1.0 + r));
  const int prefill = std::min(instances - 1, std::max(1, static_cast<int>(want)));
  return {prefill, instances - prefill};
}

double kv_handoff_s(const PerfModel& model, int isl, double link_gb_per_s) {
  const InstanceConfig& c = model.config();
  const int senders = c.attention_dp ? c.pp : c.gpus(); // N: the GPUs holding the request's KV
  const double bytes = model.kv_bytes_per_request_per_gpu(isl) * senders; // S_kv
  return bytes / (senders * link_gb_per_s * 1e9);
}

DisaggregatedFigures disaggregated_figures(const PerfModel& model, int isl, int osl, double tpot_slo_s,
                                           const DisaggregationSpec& spec) {
  DisaggregatedFigures f;
  f.prefill_req_per_s = 1.0 / (isl * model.prefill_s_per_token(isl));
  f.prefill_s = model.prefill_s(isl);
  const GpuFigures& gpu = model.gpu();
  switch (spec.handoff) {
  case KvHandoff::NVLINK:
    f.handoff_s = kv_handoff_s(model, isl, gpu.nvlink_gb_per_s);
    break;
  case KvHandoff::FABRIC:
    if (gpu.nic_gb_per_s > 0)
      f.handoff_s = kv_handoff_s(model, isl, gpu.nic_gb_per_s);
    else
      f.problem = "kv_handoff_over \"fabric\" needs the GPU's NIC rate (hardware.gpu.nic_gbps)";
    break;
  case KvHandoff::FREE:
    f.handoff_s = 0;
    break;
  }
  // The hand-off delays the second token: over the OSL − 1 tokens after the first, t_h/(OSL − 1) per token.
  f.handoff_tpot_s = osl > 1 ? f.handoff_s / (osl - 1) : 0.0;
  const int max_batch = model.max_batch(isl, osl);
  for (double b = 1; b <= max_batch; b = std::max(b + 1, b * 1.05)) { // serving_capacity's grid
    const double step_s = model.decode_step(static_cast<int>(b), isl + osl / 2.0).total_s();
    if (step_s + f.handoff_tpot_s > tpot_slo_s) break; // the step grows with the batch
    f.decode_batch = static_cast<int>(b);
    f.decode_step_s = step_s;
  }
  if (f.decode_batch > 0)
    f.decode_req_per_s = f.decode_batch / (f.decode_step_s * osl);
  else if (f.problem.empty())
    f.problem =
        fmt::format("no decode batch meets tpot_slo_s {} s (batch 1 decodes in {:.4g} s per token, the KV "
                    "hand-off adds {:.4g} s)",
                    tpot_slo_s, model.decode_step(1, isl + osl / 2.0).total_s(), f.handoff_tpot_s);
  return f;
}

double disaggregated_capacity_req_per_s(const DisaggregatedFigures& f, const DisaggregationSpec& spec,
                                        int instances) {
  const PoolSplit s = split_pool(instances, spec.prefill_per_decode);
  return std::min(s.prefill * f.prefill_req_per_s, s.decode * f.decode_req_per_s);
}

DisaggregatedLoad disaggregated_load(const PerfModel& model, const DisaggregatedFigures& f,
                                     const DisaggregationSpec& spec, int instances, int isl, int osl,
                                     double arrival_req_per_s) {
  DisaggregatedLoad l;
  l.capacity_req_per_s = disaggregated_capacity_req_per_s(f, spec, instances);
  l.served_req_per_s = std::min(arrival_req_per_s, l.capacity_req_per_s);
  l.ttft_s = f.prefill_s; // the prefill instance emits the first token
  l.tpot_s = f.decode_step_s + f.handoff_tpot_s;
  const int decoders = split_pool(instances, spec.prefill_per_decode).decode;
  if (decoders <= 0 || f.decode_batch <= 0) return l;
  // The decode pool runs at the smallest batch on the grid whose rate covers the served rate (Little's
  // law), else at B_d: when the prefill pool binds, the decoders are not full.
  for (double b = 1; b < f.decode_batch; b = std::max(b + 1, b * 1.05)) {
    const double step_s = model.decode_step(static_cast<int>(b), isl + osl / 2.0).total_s();
    if (decoders * static_cast<int>(b) / (step_s * osl) >= l.served_req_per_s) {
      l.tpot_s = step_s + f.handoff_tpot_s;
      break;
    }
  }
  return l;
}

} // namespace dcsim::serving
