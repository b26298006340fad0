#include "models/serving/spec.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::serving {

using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

// clang-format off
const KeyTable& serving_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/serving",
      "inference only: the served model and its instances, whose operating curve gives the capacity per GPU "
      "at the TPOT SLO (docs/serving.md); instead of tokens_per_s_per_gpu",
      {
          KeyDef{"model", ValueType::STRING, "", nullptr, "model shape preset",
                 {}, {"deepseek-r1", "qwen3-235b-a22b", "gpt-oss-120b", "llama3-70b"}},
          KeyDef{"isl_tokens", ValueType::INTEGER, "tokens", 1024, "mean input (prompt) length", sim::at_least(1)},
          KeyDef{"osl_tokens", ValueType::INTEGER, "tokens", 1024, "mean output length", sim::at_least(2)},
          KeyDef{"tp", ValueType::INTEGER, "", 1, "GPUs of an instance (per pipeline stage): tensor parallel "
                 "attention, or data parallel with attention_dp", sim::between(1, 1024)},
          KeyDef{"ep", ValueType::INTEGER, "", 1, "expert-parallel groups over the tp GPUs (divides tp)",
                 sim::between(1, 1024)},
          KeyDef{"pp", ValueType::INTEGER, "", 1, "pipeline stages", sim::between(1, 256)},
          KeyDef{"attention_dp", ValueType::BOOLEAN, "", false,
                 "attention data parallel: each GPU holds whole attention weights and its own requests' KV cache"},
          KeyDef{"precision", ValueType::STRING, "", "fp8", "weight precision", {}, {"bf16", "fp8", "fp4"}},
          KeyDef{"kv_bytes", ValueType::NUMBER, "bytes", 1.0, "bytes per KV-cache element (fp8 1, bf16 2)",
                 sim::between(0.25, 4)},
          KeyDef{"tpot_slo_s", ValueType::NUMBER, "s", 0.05, "time per output token the service must keep",
                 sim::positive()},
          KeyDef{"ttft_slo_s", ValueType::NUMBER, "s", 10.0, "time to first token a request must get to count "
                 "as meeting the SLO (SLO attainment, goodput)", sim::positive()},
          KeyDef{"restart_s", ValueType::NUMBER, "s", 300.0, "time a struck instance takes to serve again once "
                 "its GPUs are whole (weights loaded, warmed up)", sim::at_least(0)},
          KeyDef{"window_s", ValueType::NUMBER, "s", 600.0, "length of a request-level window after a failure "
                 "or at a demand peak", sim::between(1, 86400)},
          KeyDef{"peak_window_load_frac", ValueType::NUMBER, "fraction", 0.8, "load (demand over the pool's "
                 "capacity at the TPOT SLO) at a demand step that opens a request-level window (one a day at "
                 "most; above every step's load: never)", sim::positive()},
          KeyDef{"disaggregation", ValueType::OBJECT, "", nullptr, "prefill/decode disaggregation (see "
                 "/jobs/*/serving/disaggregation)", {}, {}, "absent: aggregated instances"},
      }};
  return table;
}
// clang-format on

ServingSpec decode_serving(const sim::Node& n) {
  ServingSpec s;
  s.model = n.string("model");
  s.isl = n.int32("isl_tokens");
  s.osl = n.int32("osl_tokens");
  s.instance.tp = n.int32("tp");
  s.instance.ep = n.int32("ep");
  s.instance.pp = n.int32("pp");
  s.instance.attention_dp = n.boolean("attention_dp");
  const std::string p = n.string("precision");
  s.instance.weights = p == "fp4" ? hardware::Precision::FP4 : p == "bf16" ? hardware::Precision::BF16 : hardware::Precision::FP8;
  s.instance.kv_bytes = n.number("kv_bytes");
  s.tpot_slo_s = n.number("tpot_slo_s");
  s.ttft_slo_s = n.number("ttft_slo_s");
  s.restart_s = n.number("restart_s");
  s.window_s = n.number("window_s");
  s.peak_window_load_frac = n.number("peak_window_load_frac");
  if (n.has("disaggregation")) s.disaggregation = decode_disaggregation(n.object("disaggregation", disaggregation_keys()));
  return s;
}

namespace {
/// A disaggregated service's capacity per GPU: C·OSL/(n·g), C = min(n_p·C_p, n_d·C_d).
ServingCapacity disaggregated_capacity(const ServingSpec& spec, const PerfModel& model, int instances) {
  ServingCapacity c;
  const DisaggregatedFigures f = disaggregated_figures(model, spec.isl, spec.osl, spec.tpot_slo_s, *spec.disaggregation);
  if (!f.problem.empty()) return {0, {}, f.problem};
  if (instances < 2)
    return {0, {}, fmt::format("disaggregation needs at least 2 instances of {} GPUs (got {})", spec.instance.gpus(), instances)};
  const double capacity = disaggregated_capacity_req_per_s(f, *spec.disaggregation, instances);
  c.output_tokens_per_s_per_gpu = capacity * spec.osl / (double(instances) * spec.instance.gpus());
  c.point.batch = f.decode_batch;
  c.point.decode_step_s = f.decode_step_s;
  c.point.tpot_s = f.decode_step_s + f.handoff_tpot_s;
  c.point.ttft_s = f.prefill_s;
  c.point.tokens_per_s_per_user = 1.0 / c.point.tpot_s;
  c.point.output_tokens_per_s_per_gpu = c.output_tokens_per_s_per_gpu;
  return c;
}
} // namespace

GpuFigures gpu_figures(const hardware::HardwareSpec& hw) {
  GpuFigures g;
  g.name = hw.gpu.model;
  g.bf16_tflops = hw.gpu.peak_tflops;
  g.fp8_tflops = hw.gpu.fp8_tflops;
  g.fp4_tflops = hw.gpu.fp4_tflops;
  g.hbm_gb = hw.gpu.hbm_gb;
  g.hbm_tb_per_s = hw.gpu.hbm_tb_per_s;
  g.nvlink_gb_per_s = hw.rack.nvlink_gbps / 8.0 / 2.0;
  g.nic_gb_per_s = hw.gpu.nic_gbps / 8.0;
  g.domain_gpus = hw.rack.domain_usable_gpus();
  g.power_w = hw.gpu.power_w;
  return g;
}

ServingCapacity serving_capacity(const ServingSpec& spec, const hardware::HardwareSpec& hardware, int instances) {
  ServingCapacity c;
  const ModelShape* shape = find_model_shape(spec.model);
  const GpuFigures gpu = gpu_figures(hardware);
  if (!shape) return {0, {}, fmt::format("unknown model \"{}\"", spec.model)};
  if (std::string why = check_instance(*shape, spec.instance, gpu); !why.empty()) return {0, {}, why};
  if (spec.instance.gpus() > gpu.domain_gpus)
    return {0, {}, fmt::format("an instance of {} GPUs does not fit one NVLink domain of {} usable GPUs",
                               spec.instance.gpus(), gpu.domain_gpus)};
  const PerfModel model(*shape, spec.instance, gpu, efficiency_for(hardware.gpu.model));
  const OperatingCurve curve = model.curve(spec.isl, spec.osl);
  if (curve.max_batch <= 0)
    return {0, {}, fmt::format("the weights ({:.1f} GB per GPU) leave no room for a KV cache on {} GB of HBM",
                               curve.weights_gb_per_gpu, gpu.hbm_gb)};
  if (spec.disaggregation) return disaggregated_capacity(spec, model, instances);
  for (double b = 1; b <= curve.max_batch; b = std::max(b + 1, b * 1.05)) { // batches 5% apart
    const OperatingPoint p = model.point(static_cast<int>(b), spec.isl, spec.osl);
    if (p.tpot_s <= spec.tpot_slo_s && p.output_tokens_per_s_per_gpu > c.output_tokens_per_s_per_gpu) {
      c.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu;
      c.point = p;
    }
  }
  if (c.output_tokens_per_s_per_gpu <= 0)
    c.problem = fmt::format("no batch meets tpot_slo_s {} s (batch 1 takes {:.4g} s per token)", spec.tpot_slo_s,
                            curve.points.front().tpot_s);
  return c;
}

} // namespace dcsim::serving
